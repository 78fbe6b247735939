#!/usr/bin/python3
"""Drives CaptureKit's web preview page in headless Chromium (Debian's chromium and
chromium-driver, through python3-selenium), as a person would: waits for the live picture,
checks that it changes, presses Photo, Record and Stop, and waits for the new items to appear
among the library thumbnails. Prints one JSON object with what it saw; exits non-zero when a
step times out.

usage: web_preview_check.py URL
"""
import json
import sys

import headless_chromium
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def main(url):
    driver = headless_chromium.driver()
    seen = {}
    try:
        driver.get(url)
        # A deadline for each step, not a rate: generous, for a loaded machine.
        wait = WebDriverWait(driver, 60)
        live = driver.find_element(By.ID, "live")
        wait.until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", live))
        seen["pictureWidth"] = driver.execute_script("return arguments[0].naturalWidth", live)
        first = live.screenshot_as_png
        # The virtual camera's picture moves every frame: a later screenshot must differ.
        wait.until(lambda d: live.screenshot_as_png != first)
        seen["pictureChanged"] = True
        wait.until(lambda d: d.find_element(By.ID, "device").text not in ("", "…"))
        seen["device"] = driver.find_element(By.ID, "device").text
        wait.until(lambda d: float(d.find_element(By.ID, "fps").text) > 0)
        seen["fps"] = float(driver.find_element(By.ID, "fps").text)

        def kinds():
            # Read in one script: the page re-renders the list once a second, so elements found
            # by one WebDriver call can be gone by the next.
            return driver.execute_script(
                "return [...document.querySelectorAll('#library img')].map(i => i.getAttribute('data-kind'))")

        wait.until(lambda d: d.find_element(By.ID, "photo").is_displayed())
        driver.find_element(By.ID, "photo").click()
        wait.until(lambda d: "photo" in kinds())
        record = driver.find_element(By.ID, "record")
        record.click()
        wait.until(lambda d: d.find_element(By.ID, "record").get_attribute("data-recording") == "true")
        seen["recordLabelWhileRecording"] = driver.find_element(By.ID, "record").text
        # Let the recording gather frames: wait for the frame counter to move on by a second's worth.
        start = int(driver.find_element(By.ID, "frames").text)
        wait.until(lambda d: int(d.find_element(By.ID, "frames").text) >= start + 30)
        driver.find_element(By.ID, "record").click()
        wait.until(lambda d: "video" in kinds())
        wait.until(lambda d: d.execute_script(
            "return [...document.querySelectorAll('#library img')].every(i => i.complete && i.naturalWidth > 0)"))
        seen["libraryKinds"] = kinds()
        seen["thumbnailWidths"] = driver.execute_script(
            "return [...document.querySelectorAll('#library img')].map(i => i.naturalWidth)")
        seen["message"] = driver.find_element(By.ID, "message").text
    finally:
        driver.quit()
    print(json.dumps(seen))


if __name__ == "__main__":
    main(sys.argv[1])
