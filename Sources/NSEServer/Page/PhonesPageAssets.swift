import NSEReports

/// The phones page's HTML, style and script, built into the binary: nothing to install, nothing fetched from
/// another host (no CDN script or font), so the page works without a network. The notifications' own look is
/// the HTML report's (`HTMLReportRenderer.style`); this adds the phones, the panel and the forms.
enum PhonesPageAssets {
    static let html = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>nse serve: phones</title>
        <link rel="stylesheet" href="/phones/page.css">
        </head>
        <body>
        <a class="skip" href="#send">Skip to the send form</a>
        <header class="bar">
        <h1>nse serve: phones</h1>
        <p id="live" role="status">Connecting…</p>
        <button type="button" id="clear">Clear everything</button>
        </header>
        <main class="layout">
        <section id="phones" class="phones" aria-label="Emulated phones"></section>
        <div class="side">
        <section id="details" class="details" aria-labelledby="details-title" tabindex="-1">
        <h2 id="details-title">Why it looks so</h2>
        <p class="hint">Select a notification (its Details button) to see the verdict, the findings and their fixes, the extension's activity, the request as received and who sent it.</p>
        </section>
        <form id="send" class="send" aria-labelledby="send-heading">
        <h2 id="send-heading">Send a push</h2>
        <p class="hint">Sent through this emulator's FCM endpoint (<code>POST /v1/projects/…/messages:send</code>) with an access token from its <code>/token</code>: no backend needed.</p>
        <label for="send-target">To</label>
        <select id="send-target" name="target" required></select>
        <label for="send-title">Title</label>
        <input id="send-title" name="title" autocomplete="off">
        <label for="send-body">Body</label>
        <textarea id="send-body" name="body" rows="2"></textarea>
        <label for="send-image">Image URL</label>
        <input id="send-image" name="image" type="url" placeholder="http://127.0.0.1:8090/photo.jpg" autocomplete="off">
        <label for="send-data">Data (<code>key=value</code>, one a line)</label>
        <textarea id="send-data" name="data" rows="3" placeholder="order_id=1234"></textarea>
        <button type="submit" id="send-button">Send</button>
        <output id="send-result" for="send-target send-title send-body send-image send-data" role="status"></output>
        </form>
        </div>
        </main>
        <script src="/phones/page.js"></script>
        </body>
        </html>

        """#

    static let style = HTMLReportRenderer.style + "\n" + #"""
        body{min-height:100vh}
        .skip{position:absolute;left:-9999px}.skip:focus{left:8px;top:8px;background:var(--card);padding:6px 10px;z-index:9;border-radius:8px}
        .bar{display:flex;flex-wrap:wrap;align-items:center;gap:8px 16px;padding:12px 20px;border-bottom:1px solid var(--line)}
        .bar h1{margin:0;font-size:20px;flex:1 1 auto}
        #live{margin:0;font-size:13px;color:var(--muted)}
        button,select,input,textarea{font:inherit;color:inherit}
        button{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:6px 12px;cursor:pointer}
        button:hover{border-color:var(--muted)}
        :focus-visible{outline:3px solid #0a84ff;outline-offset:2px}
        .layout{display:grid;grid-template-columns:minmax(0,1fr) minmax(320px,440px);gap:16px;padding:16px 20px;align-items:start}
        .phones{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start;min-width:0}
        .phone{width:340px;max-width:100%;display:flex;flex-direction:column;gap:10px}
        .phone>h2{font-size:16px;margin:0}
        .phone .meta{font-size:12px;color:var(--muted);margin:0;overflow-wrap:anywhere}
        .frame{background:#1c1c1e;border-radius:52px;padding:11px;box-shadow:0 10px 30px rgba(0,0,0,.25)}
        .screen{position:relative;border-radius:42px;min-height:620px;padding:52px 10px 18px;color:#fff;overflow:hidden;
        background:linear-gradient(165deg,#274b74 0%,#6a3c78 55%,#c0605c 100%)}
        .ios .screen::before{content:"";position:absolute;top:12px;left:50%;width:108px;height:30px;margin-left:-54px;border-radius:16px;background:#000}
        .android .frame{border-radius:30px;padding:8px;background:#202124}
        .android .screen{border-radius:23px;padding-top:40px;background:linear-gradient(180deg,#1a2a3a,#0d1b2a 60%,#253b4d)}
        .android .screen::before{content:"";position:absolute;top:14px;left:50%;width:12px;height:12px;margin-left:-6px;border-radius:50%;background:#000}
        .clock{text-align:center;font-size:60px;font-weight:300;line-height:1;margin:4px 0 2px}
        .date{text-align:center;font-size:14px;margin-bottom:14px;opacity:.9}
        .android .clock{font-size:44px;text-align:left;padding-left:8px}.android .date{text-align:left;padding-left:8px}
        .state{font-size:12px;text-align:center;margin:0 0 8px;opacity:.95}
        .state.gone{background:rgba(255,69,58,.85);border-radius:8px;padding:4px}
        .place h3{font-size:11px;text-transform:uppercase;letter-spacing:.06em;margin:10px 4px 6px;color:rgba(255,255,255,.85);font-weight:600}
        .place ol{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
        .place .none{font-size:12px;color:rgba(255,255,255,.7);margin:0 4px}
        .note{position:relative;color:var(--fg)}
        .note .view h2{display:none}
        .note .view+.view{display:none}
        .note.open .view+.view{display:block;margin-top:6px}
        .note .image-note{display:none}
        .note.open .image-note{display:block;color:rgba(255,255,255,.85)}
        .note.selected .banner{box-shadow:0 0 0 3px #0a84ff}
        .note .nothing{color:rgba(255,255,255,.85);border-color:rgba(255,255,255,.4);padding:10px;border-radius:14px;font-size:13px}
        .note .details-button{position:absolute;right:8px;top:6px;font-size:11px;padding:1px 8px;border-radius:8px;background:rgba(255,255,255,.85);color:#1c1c1e}
        .note.pending .banner{opacity:.7;font-style:italic}
        .android .banner{border-radius:16px;background:rgba(241,243,244,.95);color:#202124}
        .android .banner .icon{border-radius:50%;background:#1a73e8}
        .android .banner .name{text-transform:none}
        .controls{background:var(--card);border-radius:14px;padding:10px 12px;font-size:13px;display:grid;gap:6px}
        .controls fieldset{border:1px solid var(--line);border-radius:10px;margin:0;padding:6px 10px;display:grid;gap:4px}
        .controls legend{font-weight:600;padding:0 4px}
        .controls label{display:flex;gap:8px;align-items:center;justify-content:space-between}
        .controls label.switch{justify-content:flex-start}
        .controls .row-buttons{display:flex;gap:8px;flex-wrap:wrap}
        .controls output{min-height:1.2em;color:var(--muted)}
        .side{display:flex;flex-direction:column;gap:16px;min-width:0}
        .details,.send{background:var(--card);border-radius:16px;padding:14px}
        .details h2,.send h2{margin:0 0 8px;font-size:17px}
        .details h3{font-size:14px;margin:14px 0 6px;color:var(--muted)}
        .details .card{padding:0;border-top:none;border-radius:0;background:none}
        .details .card .view h2{display:block}
        .details table{border-collapse:collapse;width:100%;font-size:12px}
        .details td,.details th{border-top:1px solid var(--line);padding:3px 4px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
        .details pre{white-space:pre-wrap;overflow-wrap:anywhere;font-size:12px;background:var(--bg);padding:8px;border-radius:8px;margin:0}
        .details dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 10px;margin:0;font-size:13px}
        .details dt{color:var(--muted)}.details dd{margin:0;overflow-wrap:anywhere}
        .hint{font-size:13px;color:var(--muted);margin:0 0 8px}
        .send{display:grid;gap:4px}
        .send label{font-size:13px;font-weight:600;margin-top:6px}
        .send input,.send select,.send textarea{width:100%;padding:6px 8px;border:1px solid var(--line);border-radius:8px;background:var(--bg)}
        .send button{margin-top:10px;justify-self:start;background:#0a84ff;color:#fff;border-color:#0a84ff}
        #send-result{font-size:13px;overflow-wrap:anywhere;min-height:1.2em}
        #send-result.failed{color:var(--fail)}
        @media (max-width:900px){.layout{grid-template-columns:1fr;padding:10px}.phones{justify-content:center}}
        @media (max-width:400px){.screen{min-height:480px;border-radius:30px}.frame{border-radius:38px;padding:7px}.bar{padding:10px}}

        """#
}
