"""`tally dashboard` in a real browser (headless Chromium from Debian, driven by Selenium) over
PostgreSQL and the file store: every page loads with no console error and no failed request, its
numbers equal `tally report --format json` for the same report, the funnel form builds a funnel
its URL reproduces, keys are checked, and screenshots of every page at 1440 and 390 px are written
as artifacts (ARTIFACTS/dashboard/)."""
import base64
import json
import shutil
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from client import command, get
from conftest import ARTIFACTS, SINCE, UNTIL, tally

RANGE = f"since={SINCE}&until={UNTIL}"
PAGES = {
    "overview": f"/?{RANGE}",
    "overview-paris": f"/?{RANGE}&tz=Europe/Paris&feature=episode",
    "events": f"/events?{RANGE}&event=player_speed_changed&by=properties.speed&measure=count",
    "events-avg": f"/events?{RANGE}&event=player_playback_paused&measure=avg%3Aposition_seconds&interval=week",
    "funnels": f"/funnels?{RANGE}&step=episode_list_viewed&step=episode_list_episode_selected&step=player_opened"
               f"&window=1d&by=context.platform",
    "retention": f"/retention?{RANGE}&start=episode_list_viewed&return=player_opened&period=week&periods=6",
    "plans": f"/plans?{RANGE}",
    "reports": f"/reports?{RANGE}",
}


@pytest.fixture(scope="module")
def browser():
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"):
        options.add_argument(argument)
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"))
    yield driver
    driver.quit()


def authorize(driver, key: str) -> None:
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.setExtraHTTPHeaders", {"headers": {"Authorization": f"Bearer {key}"}})


def problems(driver) -> list[str]:
    """Console errors, and requests that failed or answered 4xx/5xx, since the last call."""
    found = [entry["message"] for entry in driver.get_log("browser") if entry["level"] in ("SEVERE", "WARNING")]
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.loadingFailed":
            found.append(f"failed: {message['params'].get('errorText')}")
        elif message["method"] == "Network.responseReceived":
            response = message["params"]["response"]
            if response["status"] >= 400:
                found.append(f"{response['status']} {response['url']}")
    return found


def screenshot(driver, name: str, width: int) -> None:
    driver.set_window_size(width, 900)
    height = driver.execute_script("return Math.max(document.body.scrollHeight, 900)")
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}})
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{name}-{width}.png").write_bytes(base64.b64decode(shot["data"]))


def compare_json(expected, actual, path="$"):
    """The first difference between two JSON values, numbers compared as numbers."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        if set(expected) != set(actual):
            return f"{path}: members {sorted(set(expected) ^ set(actual))}"
        for key in expected:
            difference = compare_json(expected[key], actual[key], f"{path}.{key}")
            if difference:
                return difference
        return None
    if isinstance(expected, list) and isinstance(actual, list):
        if len(expected) != len(actual):
            return f"{path}: {len(expected)} items, {len(actual)}"
        for index, (a, b) in enumerate(zip(expected, actual)):
            difference = compare_json(a, b, f"{path}[{index}]")
            if difference:
                return difference
        return None
    return None if expected == actual else f"{path}: {expected!r} vs {actual!r}"


def json_values(value) -> set[str]:
    """Every number and string in a JSON answer, as text."""
    found = set()
    if isinstance(value, dict):
        for item in value.values():
            found |= json_values(item)
    elif isinstance(value, list):
        for item in value:
            found |= json_values(item)
    elif isinstance(value, bool) or value is None:
        pass
    else:
        found.add(str(value))
    return found


@pytest.mark.parametrize("page", list(PAGES))
def test_page_loads_and_its_numbers_are_the_cli_reports(page, dashboard, keys, browser):
    authorize(browser, keys["reader"])
    problems(browser)
    browser.get(dashboard.url + PAGES[page])
    assert browser.find_element(By.TAG_NAME, "h1").text
    assert not browser.find_elements(By.CSS_SELECTOR, ".error"), browser.find_element(By.CSS_SELECTOR, ".error").text
    assert problems(browser) == []
    size = len(browser.page_source.encode())
    assert size < 200_000, f"{page}: {size} bytes"
    for width in (1440, 390):
        screenshot(browser, f"{dashboard.kind}-{page}", width)
        overflow = browser.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
        assert overflow <= 1, f"{page} at {width} px scrolls sideways by {overflow} px"
    if page == "overview" and dashboard.kind == "postgres":
        shutil.copyfile(ARTIFACTS / "postgres-overview-1440.png", ARTIFACTS / "overview.png")
    sections = browser.find_elements(By.CSS_SELECTOR, "section[data-json]")
    assert sections or page == "plans", f"{page}: no report panels"
    for section in sections:
        api = section.get_attribute("data-json")
        status, _, body = get(dashboard.url + api, keys["reader"])
        assert status == 200, f"{api}: {status} {body[:300]!r}"
        answer = json.loads(body, parse_float=str)  # numbers as their text, as data-value has them
        # The panel's numbers are the API's.
        shown = {cell.get_attribute("data-value") for cell in section.find_elements(By.CSS_SELECTOR, "[data-value]")}
        assert shown - {"null"} <= json_values(answer) | {"0"}, f"{api}: {sorted(shown - json_values(answer))[:10]}"
        # The API's answer is what the CLI prints for the same report.
        if "/api/v1/reports/" in api:
            continue  # a saved report's panel: test_saved_reports_are_the_cli_run compares those
        cli = tally(*command(api), *dashboard.store)
        expected = json.loads(cli.stdout, parse_float=str)
        assert compare_json(expected, answer) is None, f"{api}\n{' '.join(command(api))}\n{compare_json(expected, answer)}"


def test_saved_reports_are_the_cli_run(dashboard, keys, reports_dir):
    for name in ("home", "speeds"):
        status, _, body = get(f"{dashboard.url}/api/v1/reports/{name}", keys["reader"])
        assert status == 200, body
        cli = tally("report", "run", name, "--reports", str(reports_dir), *dashboard.store, "--format", "json")
        assert compare_json(json.loads(cli.stdout), json.loads(body)) is None


def test_the_funnel_form_builds_a_funnel_its_url_reproduces(dashboard, keys, browser):
    authorize(browser, keys["reader"])
    browser.get(f"{dashboard.url}/funnels?{RANGE}")
    steps = browser.find_elements(By.CSS_SELECTOR, "#funnel-form input[name=step]")
    for field, name in zip(steps, ["episode_list_viewed", "episode_list_episode_selected where position < 3", "player_opened"]):
        field.clear()
        field.send_keys(name)
    window = browser.find_element(By.CSS_SELECTOR, "#funnel-form input[name=window]")
    window.clear()
    window.send_keys("2d")
    browser.find_element(By.CSS_SELECTOR, "#funnel-form button").click()
    WebDriverWait(browser, 20).until(lambda driver: "step=" in driver.current_url)
    url = browser.current_url
    assert "step=episode_list_viewed" in url and "window=2d" in url, url
    first = [cell.text for cell in browser.find_elements(By.CSS_SELECTOR, "section[data-json] td")]
    assert first
    browser.get(url)
    assert [cell.text for cell in browser.find_elements(By.CSS_SELECTOR, "section[data-json] td")] == first
    api = browser.find_element(By.CSS_SELECTOR, "section[data-json]").get_attribute("data-json")
    answer = json.loads(get(dashboard.url + api, keys["reader"])[2])
    assert [step["label"] for step in answer["steps"]] == ["episode_list_viewed", "episode_list_episode_selected",
                                                            "player_opened"]
    assert answer["window_us"] == 2 * 86_400_000_000


def test_keys(dashboard, keys):
    for path in ("/", "/api/v1/report/trends?event=player_opened"):
        assert get(dashboard.url + path)[0] == 401
        assert get(dashboard.url + path, "not-a-key")[0] == 401
        assert get(dashboard.url + path, keys["writer"])[0] == 401, "a write key never opens the dashboard"
        assert get(dashboard.url + path, keys["reader"])[0] == 200
        assert get(dashboard.url + path, keys["reader"], basic=True)[0] == 200
    status, headers, _ = get(dashboard.url + "/")
    assert "Basic" in headers.get("WWW-Authenticate", "")
    assert get(dashboard.url + "/healthz")[0] == 200


def test_without_keys_only_loopback(file_store):
    result = tally("dashboard", "--host", "0.0.0.0", "--port", "0", "--data-dir", str(file_store), check=False)
    assert result.returncode == 64
    assert "loopback" in result.stderr
