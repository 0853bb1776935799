"""The phones page of `nse serve` (GET /) in headless Chromium (Debian's `chromium`), driven through the browser's
own DevTools protocol over its websocket (websocket-client), for NSEServerTests.PhonesPageTests and
`make serve-screenshot`. Keys are pressed and text typed as a user does (Input.dispatchKeyEvent, Input.insertText).

Usage: phones_page_browser.py MODE PORT [ARGS...]
  live PORT APNS_TOKEN TOPIC        a push sent by httpx over HTTP/2 appears on the open page, whose Details button
                                    (pressed with the keyboard) shows why it looks so
  setting PORT APNS_TOKEN TOPIC     Show Previews set to "never" on the page (keyboard), then a push: the Lock Screen
                                    shows "Notification"; then authorization "provisional": the next push is in
                                    Notification Center only
  form PORT IMAGE_URL               the send form filled and sent with the keyboard; the push appears on the phone
  android PORT IMAGE_URL            the same, to the second target (an Android phone): its notification shows the
                                    image as the shade does, the large icon, and selected, the big picture
  reinstall PORT                    the first phone's app uninstalled, then reinstalled, with its buttons (keyboard):
                                    the phone is drawn with its new tokens
  screenshot PORT PNG WIDTHxHEIGHT  waits for the page, selects the newest notification, writes a screenshot
Prints one JSON object with what the page showed. Every wait has a deadline: a hang guard, not an assertion.
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request

import websocket

WAIT = 60


class Browser:
    def __init__(self, width=1280, height=1000):
        self.profile = tempfile.mkdtemp(prefix="nse-phones-chromium-")
        executable = shutil.which("chromium") or shutil.which("chromium-browser")
        if not executable:
            raise SystemExit("chromium is not installed (make deps-browser)")
        self.process = subprocess.Popen([
            executable, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
            "--no-proxy-server", "--hide-scrollbars", "--remote-debugging-port=0", f"--user-data-dir={self.profile}",
            f"--window-size={width},{height}", "about:blank",
        ], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        deadline = time.monotonic() + WAIT
        while not (os.path.exists(port_file) and open(port_file).read().count("\n") >= 1):
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise SystemExit("chromium did not open its DevTools port")
            time.sleep(0.05)
        port = open(port_file).read().split("\n")[0].strip()
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=WAIT) as answer:
            pages = [target for target in json.load(answer) if target["type"] == "page"]
        self.socket = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=WAIT, suppress_origin=True)
        self.next_id = 0
        self.console = []
        self.send("Runtime.enable")
        self.send("Page.enable")
        # The page's own size, whatever the window around it takes.
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def send(self, method, **params):
        self.next_id += 1
        self.socket.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("method") == "Runtime.exceptionThrown":
                self.console.append(message["params"]["exceptionDetails"].get("exception", {}).get("description", "exception"))
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})

    def evaluate(self, expression):
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression, what):
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            try:
                value = self.evaluate(expression)
            except RuntimeError:
                # The document is being replaced (a navigation): asked again.
                value = None
            if value:
                return value
            time.sleep(0.05)
        raise SystemExit(json.dumps({"timeout": what, "console": self.console, "body": self.evaluate("document.body.innerText")[:3000]}))

    def open(self, url):
        self.send("Page.navigate", url=url)
        self.wait_for("!!document.documentElement && document.documentElement.dataset.ready === 'yes'", "the page loaded its devices and opened the events stream")
        # Set once: still there later only if the page never reloaded.
        self.evaluate("window.nseNoReload = 'same page'")

    def focus(self, selector):
        self.evaluate(f"document.querySelector({json.dumps(selector)}).focus()")
        focused = self.evaluate(f"document.activeElement === document.querySelector({json.dumps(selector)})")
        if not focused:
            raise SystemExit(f"could not focus {selector}")

    def press(self, key, code, key_code, text=None):
        """One key pressed and released; `text` is what it types (Enter's "\\r" is what activates a button)."""
        down = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": key_code, "nativeVirtualKeyCode": key_code}
        if text:
            down["text"] = text
        self.send("Input.dispatchKeyEvent", **down)
        self.send("Input.dispatchKeyEvent", type="keyUp", key=key, code=code, windowsVirtualKeyCode=key_code, nativeVirtualKeyCode=key_code)

    def type(self, text):
        self.send("Input.insertText", text=text)

    def close(self):
        try:
            self.socket.close()
        finally:
            self.process.kill()
            self.process.wait()
            shutil.rmtree(self.profile, ignore_errors=True)


ENTER = ("Enter", "Enter", 13, "\r")
DOWN = ("ArrowDown", "ArrowDown", 40)


def send_apns(port, token, topic, title, body):
    """A backend's APNs push: httpx over HTTP/2 with prior knowledge, an ES256 provider token from PyJWT."""
    import httpx
    import jwt
    from cryptography.hazmat.primitives.asymmetric import ec
    provider_token = jwt.encode({"iss": "TEAM123456", "iat": int(time.time())}, ec.generate_private_key(ec.SECP256R1()),
                                algorithm="ES256", headers={"kid": "KEY1234567"})
    payload = {"aps": {"alert": {"title": title, "body": body}, "mutable-content": 1}}
    with httpx.Client(http1=False, http2=True, timeout=30) as client:
        answer = client.post(f"http://127.0.0.1:{port}/3/device/{token}", json=payload, headers={
            "authorization": f"bearer {provider_token}", "apns-topic": topic, "apns-push-type": "alert"})
    if answer.status_code != 200:
        raise SystemExit(f"APNs answered {answer.status_code}: {answer.text}")


# What the first phone's places list: each notification's seq and text, newest first, whether its preview is hidden
# and its images drawn.
PLACES = """(function(){var phone=document.querySelector('.phone');var out={};
phone.querySelectorAll('.place').forEach(function(p){out[p.classList[1]]=[].map.call(p.querySelectorAll('li.note'),function(li){
return {seq:Number(li.dataset.seq),pending:li.classList.contains('pending'),text:li.querySelector('.views').innerText.replace(/\\s+/g,' ').trim(),
hidden:li.dataset.hiddenPreview==='yes',thumb:!!li.querySelector('img.thumb'),full:!!li.querySelector('img.full')};});});return out;})()"""


def delivered(browser, count):
    """The first phone's places once it shows `count` delivered notifications (each seq counted once)."""
    return browser.wait_for(
        f"""(function(){{var p={PLACES};var seqs={{}};Object.keys(p).forEach(function(k){{p[k].forEach(function(n){{if(!n.pending)seqs[n.seq]=1;}});}});
        return Object.keys(seqs).length>={count}?p:null;}})()""", f"{count} delivered notifications on the first phone")


def live(port, token, topic):
    browser = Browser()
    try:
        browser.open(f"http://127.0.0.1:{port}/")
        before = browser.evaluate(PLACES)
        send_apns(port, token, topic, "Live from httpx", "Sent while the page was open")
        after = delivered(browser, 1)
        # Select it with the keyboard: focus its Details button and press Enter.
        browser.focus(".place.lockScreen li.note .details-button")
        browser.press(*ENTER)
        panel = browser.wait_for("document.getElementById('details').dataset.seq && document.activeElement.id === 'details' && document.querySelector('#details .card') ? document.getElementById('details').innerText : null",
                                 "the details panel")
        return {"before": before, "after": after, "details": panel, "sameDocument": browser.evaluate("window.nseNoReload"),
                "opened": browser.evaluate("document.querySelectorAll('.note.open').length"),
                "console": browser.console}
    finally:
        browser.close()


def choose(browser, selector, presses):
    """Chooses an option of a closed <select> with the keyboard, as a user does: focus it, press the down arrow."""
    saved = browser.evaluate(f"Number(document.querySelector({json.dumps(selector)}).form.dataset.saved || 0)")
    browser.focus(selector)
    for _ in range(presses):
        browser.press(*DOWN)
    browser.wait_for(f"Number(document.querySelector({json.dumps(selector)}).form.dataset.saved || 0) >= {saved + presses}",
                     f"{selector} saved through the control API")
    return browser.evaluate(f"document.querySelector({json.dumps(selector)}).value")


def setting(port, token, topic):
    browser = Browser()
    try:
        browser.open(f"http://127.0.0.1:{port}/")
        previews = choose(browser, ".phone select[name=previews]", 2)
        send_apns(port, token, topic, "Secret sale", "Only for you")
        hidden = delivered(browser, 1)
        authorization = choose(browser, ".phone select[name=authorization]", 1)
        send_apns(port, token, topic, "Quiet hello", "Delivered quietly")
        quiet = delivered(browser, 2)
        return {"previews": previews, "hidden": hidden, "authorization": authorization, "quiet": quiet,
                "saved": browser.evaluate("document.querySelector('.phone .controls output').textContent"),
                "sameDocument": browser.evaluate("window.nseNoReload"), "console": browser.console}
    finally:
        browser.close()


def form(port, image):
    browser = Browser()
    try:
        browser.open(f"http://127.0.0.1:{port}/")
        browser.focus("#send-title")
        browser.type("Designer's try")
        browser.focus("#send-body")
        browser.type("New arrivals are in")
        browser.focus("#send-image")
        browser.type(image)
        browser.focus("#send-data")
        browser.type("campaign=spring")
        browser.focus("#send-button")
        browser.press(*ENTER)
        sent = browser.wait_for("(function(){var t=document.getElementById('send-result').textContent;return /^(Sent|FCM answered|Error|Choose|Data)/.test(t)?t:null;})()",
                                "the send form's answer")
        shown = delivered(browser, 1)
        # Selected (keyboard), the notification opens: the expanded view with the whole image.
        browser.focus(".place.lockScreen li.note .details-button")
        browser.press(*ENTER)
        browser.wait_for("!!document.querySelector('.place.lockScreen li.note.open')", "the selected notification opened")
        expanded = browser.evaluate("(function(){var v=document.querySelector('.place.lockScreen li.note.open .view + .view');return v?{display:getComputedStyle(v).display,image:!!v.querySelector('img.full')}:null;})()")
        return {"sent": sent, "places": shown, "expanded": expanded, "target": browser.evaluate("document.getElementById('send-target').selectedOptions[0].textContent"),
                "sameDocument": browser.evaluate("window.nseNoReload"), "console": browser.console}
    finally:
        browser.close()


def android(port, image):
    browser = Browser()
    try:
        browser.open(f"http://127.0.0.1:{port}/")
        # The second target of the send form: the Android phone's FCM token (a closed <select>, the down arrow).
        browser.focus("#send-target")
        browser.press(*DOWN)
        target = browser.evaluate("document.getElementById('send-target').selectedOptions[0].textContent")
        browser.focus("#send-title")
        browser.type("Pixel preview")
        browser.focus("#send-image")
        browser.type(image)
        browser.focus("#send-button")
        browser.press(*ENTER)
        sent = browser.wait_for("(function(){var t=document.getElementById('send-result').textContent;return /^(Sent|FCM answered|Error|Choose|Data)/.test(t)?t:null;})()",
                                "the send form's answer")
        note = ".phone.android .place.shade li.note:not(.pending)"
        browser.wait_for(f"!!document.querySelector({json.dumps(note)})", "the Android phone's notification")
        collapsed = browser.evaluate(f"""(function(){{var li=document.querySelector({json.dumps(note)});var icon=li.querySelector('.view img.large-icon');
        return {{text:li.querySelector('.views').innerText.replace(/\\s+/g,' ').trim(),icon:!!icon&&icon.getBoundingClientRect().width>0,
        iconWidth:icon?icon.getBoundingClientRect().width:0,iconHeight:icon?icon.getBoundingClientRect().height:0,
        pictureHidden:getComputedStyle(li.querySelector('.view + .view')).display==='none'}};}})()""")
        browser.focus(f"{note} .details-button")
        browser.press(*ENTER)
        browser.wait_for(f"!!document.querySelector({json.dumps(note)}.replace('li.note', 'li.note.open'))", "the selected notification opened")
        expanded = browser.evaluate(f"""(function(){{var v=document.querySelector({json.dumps(note)}.replace('li.note', 'li.note.open')+' .view + .view');
        var p=v&&v.querySelector('img.picture');return v?{{display:getComputedStyle(v).display,picture:!!p&&p.getBoundingClientRect().width>0}}:null;}})()""")
        return {"sent": sent, "target": target, "collapsed": collapsed, "expanded": expanded,
                "sameDocument": browser.evaluate("window.nseNoReload"), "console": browser.console}
    finally:
        browser.close()


def reinstall(port):
    browser = Browser()
    try:
        browser.open(f"http://127.0.0.1:{port}/")
        meta = "document.querySelector('.phone .meta').textContent"
        before = browser.evaluate(meta)
        disabled = browser.evaluate("document.querySelector('.phone button.reinstall').disabled")
        browser.focus(".phone button.uninstall")
        browser.press(*ENTER)
        gone = browser.wait_for("(function(){var s=document.querySelector('.phone .state');return s.classList.contains('gone')?s.textContent:null;})()",
                                "the phone's app uninstalled")
        browser.focus(".phone button.reinstall")
        browser.press(*ENTER)
        after = browser.wait_for(f"(function(){{var m={meta};return m!=={json.dumps(before)}&&!document.querySelector('.phone .state').classList.contains('gone')?m:null;}})()",
                                 "the phone drawn with its new tokens")
        return {"before": before, "after": after, "gone": gone, "reinstallDisabledWhileInstalled": disabled,
                "saved": browser.evaluate("document.querySelector('.phone .controls output').textContent"),
                "target": browser.evaluate("document.getElementById('send-target').selectedOptions[0].textContent"),
                "sameDocument": browser.evaluate("window.nseNoReload"), "console": browser.console}
    finally:
        browser.close()


def screenshot(port, png, size):
    width, height = (int(part) for part in size.split("x"))
    browser = Browser(width, height)
    try:
        browser.open(f"http://127.0.0.1:{port}/")
        browser.wait_for("document.querySelectorAll('li.note:not(.pending) img.thumb').length > 0", "a notification with its image")
        browser.focus(".place.lockScreen li.note .details-button")
        browser.press(*ENTER)
        browser.wait_for("!!document.querySelector('#details .card')", "the details panel")
        browser.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
        image = browser.send("Page.captureScreenshot", format="png",
                             clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
        with open(png, "wb") as handle:
            handle.write(base64.b64decode(image["data"]))
        return {"screenshot": png, "console": browser.console}
    finally:
        browser.close()


def main():
    mode, port = sys.argv[1], sys.argv[2]
    rest = sys.argv[3:]
    result = {"live": lambda: live(port, *rest), "setting": lambda: setting(port, *rest), "form": lambda: form(port, *rest),
              "android": lambda: android(port, *rest),
              "reinstall": lambda: reinstall(port), "screenshot": lambda: screenshot(port, *rest)}[mode]()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
