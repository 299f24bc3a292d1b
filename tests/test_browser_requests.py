"""Every page in both languages asks only the app's own server for anything.

Some school networks block font servers and other outside hosts, so the browser must not need
them. The test records every request the browser makes for a page (HTTP requests and web sockets)
while the page loads, runs its script and draws its charts and the whole page, and fails listing
each one that goes to a host other than the app's server. It also checks the page's icon links,
whose target a browser may fetch later or not at all, and that each answers with an image.
``data:`` and ``blob:`` URLs need no network and are allowed. The server reads
.streamlit/config.toml as deployed, so usage statistics (sent to data.streamlit.io when
``browser.gatherUsageStats`` is on) would show here too.

The ``page`` fixture saves a full-page screenshot of each page
(artifacts/screenshots/<test name>.png).
"""

from urllib.parse import urlsplit

import pytest
from conftest import assert_no_exception, wait_for_app
from test_browser_smoke import EXTRA_QUERY, MAX_SCREENSHOT_HEIGHT, PAGES, WHOLE_PAGE_JS

from tinygpt.i18n import t

pytestmark = pytest.mark.browser

TIMEOUT = 90_000
# After the script has finished, the browser still fetches what the last messages asked for (the
# page icon, chart code, fonts of text just drawn); this long a pause lets those requests start.
SETTLE_MS = 1_500
LOCAL_SCHEMES = ("data", "blob")
ICON_LINKS_JS = """() => [...document.querySelectorAll('link[rel~="icon"]')].map(l => l.href)"""


def _outside(urls: list[str], origin: str) -> list[str]:
    """The URLs that go to a host other than ``origin``'s (host and port; any scheme, so ws://)."""
    own = urlsplit(origin).netloc
    return [url for url in urls if urlsplit(url).scheme not in LOCAL_SCHEMES and urlsplit(url).netloc != own]


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("path", list(PAGES), ids=lambda p: p or "train")
def test_every_page_asks_only_the_app_server(app_server, page, path, lang):
    requests: list[str] = []
    page.context.on("request", lambda request: requests.append(request.url))
    page.on("websocket", lambda ws: requests.append(ws.url))

    title, _ = PAGES[path]
    page.goto(f"{app_server}/{path}?lang={lang}{EXTRA_QUERY.get(path, '')}")
    page.get_by_role("heading", name=t(title, lang)).first.wait_for(timeout=TIMEOUT)
    wait_for_app(page, TIMEOUT)
    assert_no_exception(page)
    if path:  # the Train page draws its loss chart once a model trains; the others always have charts
        page.locator("[data-testid='stVegaLiteChart']").first.wait_for(timeout=TIMEOUT)
    # The window grows to the page's height, so everything below the fold is drawn (and fetches
    # what it needs) while requests are recorded, and the screenshot shows the whole page.
    height = min(int(page.evaluate(WHOLE_PAGE_JS)) + 40, MAX_SCREENSHOT_HEIGHT)
    page.set_viewport_size({"width": 1280, "height": max(900, height)})
    page.wait_for_timeout(SETTLE_MS)
    wait_for_app(page, TIMEOUT)

    assert requests, "no request was recorded"
    icons = page.evaluate(ICON_LINKS_JS)
    outside = sorted(set(_outside(requests, app_server)))
    outside_icons = sorted(set(_outside(icons, app_server)))
    assert not outside and not outside_icons, (
        f"/{path}?lang={lang} needs hosts other than the app's server ({app_server}):\n"
        + "".join(f"  request   {url}\n" for url in outside)
        + "".join(f"  icon link {url}\n" for url in outside_icons)
    )
    assert icons, "the page has no icon link"
    for url in icons:  # the tab shows the app's own icon, not a broken image
        response = page.request.get(url)
        assert response.ok and response.headers["content-type"].startswith("image/"), (
            f"icon {url}: HTTP {response.status} {response.headers.get('content-type')}"
        )
