#!/usr/bin/python3
"""Serves a static DocC site (what scripts/docs.sh builds) on 127.0.0.1 and checks it as a
reader would meet it.

1. Crawl: from the landing pages (the combined one and each module's), follows every internal link of every page — the topic
   references in each page's render JSON, which are what the rendered page's links are made
   from — fetching each linked page's HTML and data over HTTP. A link whose page or data does
   not load is broken.
2. Browser: headless Chromium (Debian's chromium and chromium-driver, through
   python3-selenium) opens the landing pages, `CaptureSession`'s page and every article, waits
   until the page has rendered its title, and checks that every link the rendered page shows
   leads to a page the crawl loaded.

Prints one JSON object with what it saw; exits non-zero when a step times out.

usage: docs_site_check.py SITE_DIR
"""
import functools
import http.server
import json
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import headless_chromium
from selenium.webdriver.support.ui import WebDriverWait

MAX_PAGES = 20_000
DEADLINE_SECONDS = 300


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


def fetch(base, path):
    try:
        with urllib.request.urlopen(base + urllib.parse.quote(path), timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, b""


def page_path(url):
    """/documentation/capturekit/capturesession#overview → /documentation/capturekit/capturesession"""
    return urllib.parse.urlsplit(url).path.rstrip("/").lower()


def crawl(base, start_pages):
    """Every page reachable from `start_pages`: {path: title}, and the broken links found."""
    pages, broken, links = {}, [], 0
    queue, queued = list(start_pages), set(start_pages)
    started = time.monotonic()
    while queue:
        if len(pages) >= MAX_PAGES or time.monotonic() - started > DEADLINE_SECONDS:
            raise SystemExit(f"crawl: stopped after {len(pages)} pages (bound reached)")
        path = queue.pop()
        status, body = fetch(base, path + "/index.html")
        data_status, data = fetch(base, "/data" + path + ".json")
        if status != 200 or data_status != 200:
            broken.append({"page": path, "html": status, "data": data_status})
            continue
        node = json.loads(data)
        pages[path] = node.get("metadata", {}).get("title", "")
        for reference in node.get("references", {}).values():
            if reference.get("type") != "topic" or not reference.get("url", "").startswith("/"):
                continue
            links += 1
            target = page_path(reference["url"])
            if target not in queued:
                queued.add(target)
                queue.append(target)
    return pages, broken, links


def articles(base, module):
    """The article pages the module's landing page links to."""
    _, data = fetch(base, f"/data/documentation/{module}.json")
    node = json.loads(data)
    return sorted({page_path(r["url"]) for r in node["references"].values()
                   if r.get("type") == "topic" and r.get("role") == "article"})


def browse(base, paths, pages):
    driver = headless_chromium.driver()
    seen = []
    try:
        for path in paths:
            driver.get(base + path + "/")
            title = pages[path]
            # A deadline, not a rate: generous, for a loaded machine.
            WebDriverWait(driver, 60).until(
                lambda d: d.execute_script("const h = document.querySelector('main h1'); return h && h.innerText.trim()") == title)
            hrefs = driver.execute_script(
                "return [...document.querySelectorAll('main a[href]')].map(a => a.href)")
            internal = [h for h in hrefs if h.startswith(base)]
            unknown = sorted({page_path(h[len(base):]) for h in internal if "/documentation" in h}
                             - set(pages))
            seen.append({"page": path, "title": title, "links": len(internal), "unknownLinks": unknown})
    finally:
        driver.quit()
    return seen


def main(site):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        landing = ["/documentation", "/documentation/capturekit", "/documentation/capturekitpreview"]
        pages, broken, links = crawl(base, landing)
        read = landing + ["/documentation/capturekit/capturesession"]
        read += articles(base, "capturekit") + articles(base, "capturekitpreview")
        missing = [p for p in read if p not in pages]
        rendered = browse(base, [p for p in read if p in pages], pages)
        print(json.dumps({"pages": len(pages), "links": links, "broken": broken,
                          "missingPages": missing, "rendered": rendered}))
    finally:
        server.shutdown()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
