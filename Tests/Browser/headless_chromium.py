"""Headless Chromium for the browser tests: Debian's chromium and chromium-driver through
python3-selenium, with a profile of its own (a fresh temporary folder) so runs never share
state."""
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


def driver():
    """A new headless Chromium WebDriver session; quit() it when done."""
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--user-data-dir=" + tempfile.mkdtemp(prefix="capturekit-chromium-")):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
