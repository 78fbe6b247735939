#!/usr/bin/python3
"""Drives the web preview's timeline in headless Chromium (Debian's chromium and
chromium-driver, through python3-selenium), as a person would: waits until the timeline shows
a finished clip, an episode of motion and an application event, each with its picture loaded,
then presses the clip's Play button and waits until the page's player has played past the
first half second of it. Prints one JSON object with what it saw; exits non-zero when a step
times out.

usage: web_timeline_check.py URL EVENT_TITLE
"""
import json
import sys

import headless_chromium
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

# One script: the page re-renders the timeline when it changes, so elements found by one
# WebDriver call can be gone by the next.
ENTRIES = """
return [...document.querySelectorAll('#timeline li')].map(row => {
  const image = row.querySelector('img');
  return {id: row.dataset.id, kind: row.dataset.kind, state: row.dataset.state,
          text: row.querySelector('span').textContent,
          picture: image ? (image.complete ? image.naturalWidth : -1) : 0,
          playable: row.querySelector('button.play') !== null};
});
"""


def main(url, event_title):
    driver = headless_chromium.driver()
    seen = {}
    try:
        driver.get(url)
        # A deadline for each step, not a rate: generous, for a loaded machine.
        wait = WebDriverWait(driver, 90)

        def ready(entries):
            clip = any(e["kind"] == "clip" and e["state"] == "finished" and e["playable"] and e["picture"] > 0 for e in entries)
            motion = any(e["kind"] == "motion" and e["picture"] > 0 for e in entries)
            event = any(e["kind"] == "event" and event_title in e["text"] and e["picture"] > 0 for e in entries)
            return clip and motion and event

        wait.until(lambda d: ready(d.execute_script(ENTRIES)))
        seen["entries"] = driver.execute_script(ENTRIES)
        clip = next(e for e in seen["entries"] if e["kind"] == "clip" and e["state"] == "finished")
        seen["playedID"] = clip["id"]
        # A real click (WebDriver's, a user gesture the page's play() may start sound on),
        # again if the timeline re-rendered the button away between finding and clicking it.
        for _ in range(5):
            try:
                driver.find_element(By.CSS_SELECTOR, f"#timeline li[data-id='{clip['id']}'] button.play").click()
                break
            except StaleElementReferenceException:
                continue
        player = driver.find_element(By.ID, "player")
        # HAVE_CURRENT_DATA or more: the movie's index was read and a picture decoded.
        wait.until(lambda d: d.execute_script("return arguments[0].readyState >= 2 || arguments[0].error !== null", player))
        seen["error"] = driver.execute_script("return arguments[0].error && arguments[0].error.message", player)
        if seen["error"] is None:
            try:
                wait.until(lambda d: d.execute_script("return arguments[0].currentTime > 0.5 || arguments[0].ended", player))
            except TimeoutException:
                seen["stalled"] = True
            for key in ("duration", "videoWidth", "videoHeight", "currentTime", "paused", "readyState", "networkState"):
                seen[key] = driver.execute_script(f"return arguments[0].{key}", player)
            seen["playerID"] = player.get_attribute("data-id")
        seen["message"] = driver.find_element(By.ID, "message").text
    finally:
        driver.quit()
    print(json.dumps(seen))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
