/// The phones page's script: draws every device as a phone from the control API, follows the events stream so a
/// push appears without a reload, shows why a notification looks as it does, changes a device's settings and app
/// state, and sends a push through the emulator's FCM endpoint. Plain DOM, no library; every text from a push is
/// set as text, and the only HTML it inserts is the server's own (`/phones/notifications/<seq>`, escaped there).
extension PhonesPageAssets {
    static let script = #"""
        (function () {
        'use strict';
        var api = '/emulator/v1/';
        var shownPerDevice = 50;
        var phonesBox = document.getElementById('phones');
        var live = document.getElementById('live');
        var details = document.getElementById('details');
        var entries = {};      // device key -> {device, uninstalledAt, notes (newest first), section}
        var order = [];        // device keys as the control API lists them
        var views = {};        // seq -> promise of {views, hiddenViews, card}
        var selected = null;   // {key, seq}
        var loaded = false, streaming = false, loading = null;

        function el(tag, props, children) {
          var node = document.createElement(tag);
          Object.keys(props || {}).forEach(function (name) {
            if (name === 'text') node.textContent = props[name];
            else if (name === 'className') node.className = props[name];
            else if (name in node && typeof node[name] !== 'function' && name.indexOf('-') < 0) node[name] = props[name];
            else node.setAttribute(name, props[name]);
          });
          (children || []).forEach(function (child) { if (child != null) node.append(child); });
          return node;
        }

        function call(method, path, body, headers) {
          var init = {method: method, headers: headers || {}};
          if (body !== undefined) {
            init.body = typeof body === 'string' ? body : JSON.stringify(body);
            if (!init.headers['content-type']) init.headers['content-type'] = 'application/json';
          }
          return fetch(path, init).then(function (response) {
            return response.text().then(function (text) {
              var json = null;
              try { json = text ? JSON.parse(text) : null; } catch (e) { json = null; }
              return {status: response.status, json: json, text: text};
            });
          });
        }

        function devicePath(key) { return api + 'devices/' + encodeURIComponent(key); }

        function markReady() {
          document.documentElement.dataset.ready = loaded && streaming ? 'yes' : 'no';
        }

        // The devices and their newest notifications, drawn afresh (at start and after a clear).
        function load() {
          loading = call('GET', api + 'devices').then(function (answer) {
            var devices = (answer.json && answer.json.devices) || [];
            var old = entries;
            entries = {};
            order = devices.map(function (device) { return device.key; });
            phonesBox.replaceChildren();
            devices.forEach(function (device) {
              var entry = {device: device, uninstalledAt: null, notes: (old[device.key] || {}).notes || []};
              entries[device.key] = entry;
              entry.section = drawPhone(entry);
              phonesBox.append(entry.section);
            });
            if (!devices.length) phonesBox.append(el('p', {className: 'hint', text: 'No emulated devices: start nse serve with --devices FILE, or add one with POST /emulator/v1/devices.'}));
            fillTargets();
            return Promise.all(devices.map(function (device) {
              return call('GET', devicePath(device.key) + '/notifications?limit=' + shownPerDevice).then(function (list) {
                var entry = entries[device.key];
                if (!entry || list.status !== 200) return;
                entry.device = list.json.device;
                entry.uninstalledAt = list.json.uninstalledAt || null;
                list.json.notifications.forEach(function (note) { upsert(entry, note); });
                return redraw(entry);
              });
            }));
          }).then(function () { loaded = true; markReady(); loading = null; });
          return loading;
        }

        // Keeps the notes newest first, one per seq; a pending one never replaces its delivery.
        function upsert(entry, note) {
          var at = entry.notes.findIndex(function (known) { return known.seq === note.seq; });
          if (at >= 0) {
            if (entry.notes[at].status === 'delivered' && note.status !== 'delivered') return;
            entry.notes[at] = note;
          } else {
            entry.notes.push(note);
            entry.notes.sort(function (a, b) { return b.seq - a.seq; });
            if (entry.notes.length > shownPerDevice) entry.notes.length = shownPerDevice;
          }
        }

        function viewsOf(seq) {
          if (!views[seq]) {
            views[seq] = call('GET', '/phones/notifications/' + seq).then(function (answer) {
              if (answer.status !== 200) { delete views[seq]; return null; }
              return answer.json;
            });
          }
          return views[seq];
        }

        function isAndroid(device) { return device.platform === 'android'; }

        function drawPhone(entry) {
          var device = entry.device;
          var android = isAndroid(device);
          var id = 'phone-' + order.indexOf(device.key);
          var section = el('section', {className: 'phone ' + (android ? 'android' : 'ios'), 'aria-labelledby': id + '-name', 'data-key': device.key});
          var tokens = [];
          if (device.apns) tokens.push('APNs ' + device.apns.token.slice(0, 8) + '… (' + device.apns.environment + ')');
          if (device.fcm) tokens.push('FCM ' + device.fcm.token.slice(0, 12) + '… (' + device.fcm.project + ')');
          section.append(el('h2', {id: id + '-name', text: device.name + (android ? ' · Android' : ' · iPhone')}));
          section.append(el('p', {className: 'meta', text: [device.bundleId || ''].concat(tokens).filter(Boolean).join(' · ')}));
          var now = new Date();
          var screen = el('div', {className: 'screen'}, [
            el('div', {className: 'clock', text: now.toLocaleTimeString([], {hour: '2-digit', minute: '2-digit'})}),
            el('div', {className: 'date', text: now.toLocaleDateString([], {weekday: 'long', month: 'long', day: 'numeric'})}),
            el('p', {className: 'state', 'aria-live': 'polite'}),
          ]);
          var places = android
            ? [['shade', 'Notification shade']]
            : [['lockScreen', 'Lock Screen'], ['notificationCenter', 'Notification Center']];
          places.concat([['offScreen', 'Not on screen']]).forEach(function (place) {
            screen.append(el('div', {className: 'place ' + place[0]}, [
              el('h3', {text: place[1]}), el('ol', {'aria-label': device.name + ': ' + place[1]}),
            ]));
          });
          section.append(el('div', {className: 'frame'}, [screen]));
          section.append(drawControls(entry, id));
          return section;
        }

        function drawControls(entry, id) {
          var device = entry.device;
          var settings = device.settings || {};
          var form = el('form', {className: 'controls', 'aria-label': device.name + ': settings and app'});
          form.addEventListener('submit', function (event) { event.preventDefault(); });
          var status = el('output', {className: 'saved', role: 'status'});
          var queue = Promise.resolve();
          function choice(name, label, values, current, change) {
            var control = el('select', {name: name, id: id + '-' + name});
            values.forEach(function (value) { control.append(el('option', {value: value, text: value, selected: value === current})); });
            control.addEventListener('change', function () { change(control.value); });
            return el('label', {htmlFor: id + '-' + name}, [document.createTextNode(label), control]);
          }
          // One change at a time, in the order made: two quick changes must not reach the server swapped.
          function patch(changes, words) {
            status.textContent = 'Saving…';
            queue = queue.then(function () { return call('PATCH', devicePath(device.key), changes); }).then(function (answer) {
              if (answer.status === 200) {
                entry.device = answer.json.device;
                device = entry.device;
                status.textContent = 'Saved: ' + words + '. The next push shows it.';
                form.dataset.saved = String(Number(form.dataset.saved || 0) + 1);
              } else {
                status.textContent = 'Not saved: ' + ((answer.json && answer.json.error) || answer.status);
              }
            }).catch(function (error) { status.textContent = 'Not saved: ' + error; });
            return queue;
          }
          function setting(name, value) {
            var change = {settings: {}};
            change.settings[name] = value;
            return patch(change, name + ' ' + value);
          }
          if (!isAndroid(device)) {
            var group = el('fieldset', {}, [el('legend', {text: 'Notification settings'})]);
            group.append(choice('authorization', 'Allow notifications', ['authorized', 'provisional', 'ephemeral', 'denied', 'notDetermined'], settings.authorization || 'authorized', function (v) { setting('authorization', v); }));
            group.append(choice('previews', 'Show previews', ['always', 'whenUnlocked', 'never'], settings.previews || 'always', function (v) { setting('previews', v); }));
            [['alert', 'Banners'], ['lockScreen', 'Lock Screen'], ['notificationCenter', 'Notification Center'], ['sound', 'Sounds'], ['badge', 'Badges']].forEach(function (item) {
              var box = el('input', {type: 'checkbox', name: item[0], id: id + '-' + item[0], checked: settings[item[0]] !== false});
              box.addEventListener('change', function () { setting(item[0], box.checked); });
              group.append(el('label', {className: 'switch', htmlFor: id + '-' + item[0]}, [box, document.createTextNode(item[1])]));
            });
            form.append(group);
          }
          form.append(choice('appState', 'App state', ['background', 'foreground', 'notRunning'], device.appState || 'background', function (v) { patch({appState: v}, 'app state ' + v); }));
          var uninstall = el('button', {type: 'button', className: 'uninstall', text: 'Uninstall the app'});
          uninstall.addEventListener('click', function () {
            call('POST', devicePath(device.key) + '/uninstall').then(function (answer) {
              if (answer.status === 200) {
                entry.uninstalledAt = answer.json.uninstalledAt;
                status.textContent = 'Uninstalled: the next push to it gets Unregistered (APNs 410, FCM 404 UNREGISTERED).';
                drawState(entry);
              } else {
                status.textContent = 'Not uninstalled: ' + ((answer.json && answer.json.error) || answer.status);
              }
            });
          });
          // A reinstall gives the app new tokens (the old ones keep getting Unregistered) and a new installation's
          // settings, state and topics: the phone is drawn again with them, and the send form lists the new FCM token.
          var reinstall = el('button', {type: 'button', className: 'reinstall', text: 'Reinstall the app', disabled: !entry.uninstalledAt});
          reinstall.addEventListener('click', function () {
            call('POST', devicePath(device.key) + '/reinstall').then(function (answer) {
              if (answer.status === 200) {
                entry.device = answer.json.device;
                entry.uninstalledAt = null;
                var fresh = drawPhone(entry);
                entry.section.replaceWith(fresh);
                entry.section = fresh;
                fillTargets();
                fresh.querySelector('.controls output').textContent = 'Reinstalled with new tokens (the old ones keep getting Unregistered), as a new install: notifications allowed when asked, no FCM topics.';
                return redraw(entry);
              }
              status.textContent = 'Not reinstalled: ' + ((answer.json && answer.json.error) || answer.status);
            });
          });
          form.append(el('div', {className: 'row-buttons'}, [uninstall, reinstall]));
          form.append(status);
          return form;
        }

        function drawState(entry) {
          var state = entry.section.querySelector('.state');
          entry.section.querySelector('button.uninstall').disabled = !!entry.uninstalledAt;
          entry.section.querySelector('button.reinstall').disabled = !entry.uninstalledAt;
          if (entry.uninstalledAt) {
            state.className = 'state gone';
            state.textContent = 'App uninstalled ' + new Date(entry.uninstalledAt).toLocaleString() + ': sends get Unregistered';
          } else {
            state.className = 'state';
            var settings = entry.device.settings || {};
            state.textContent = isAndroid(entry.device) ? 'App ' + (entry.device.appState || 'background')
              : 'App ' + (entry.device.appState || 'background') + ' · ' + (settings.authorization || 'authorized') + ' · previews ' + (settings.previews || 'always');
          }
        }

        function titleOf(note) {
          var phone = note.phone || {};
          var content = phone.content || {};
          if (phone.android && phone.android.notification) return phone.android.notification.title || '(no title)';
          return content.title || content.body || note.id;
        }

        function item(entry, note, drawn, hidden, place) {
          var li = el('li', {className: 'note', 'data-seq': note.seq, 'data-place': place});
          var box = el('div', {className: 'views'});
          if (!drawn) {
            li.classList.add('pending');
            box.append(el('div', {className: 'banner'}, [el('div', {className: 'body', text: 'Delivering… (' + note.service + ' ' + note.id + ')'})]));
          } else {
            // The server's own markup (the HTML report's renderer), escaped there.
            box.innerHTML = hidden && drawn.hiddenViews ? drawn.hiddenViews : drawn.views;
          }
          li.append(box);
          if (hidden) li.dataset.hiddenPreview = 'yes';
          var button = el('button', {type: 'button', className: 'details-button', text: 'Details', 'aria-label': 'Details: ' + titleOf(note) + ' (' + (place === 'offScreen' ? 'not on screen' : place) + ')', 'aria-pressed': 'false'});
          button.addEventListener('click', function () { select(entry, note.seq); });
          li.append(button);
          li.addEventListener('click', function (event) { if (event.target === li || box.contains(event.target)) select(entry, note.seq); });
          if (selected && selected.seq === note.seq) { li.classList.add('selected', 'open'); button.setAttribute('aria-pressed', 'true'); }
          return li;
        }

        // Each place lists the notifications it shows, newest first (provisional ones in Notification Center
        // only, as PhoneDisplay decides; a place whose previews are hidden draws the app and "Notification").
        function redraw(entry) {
          var notes = entry.notes.slice();
          return Promise.all(notes.map(function (note) { return note.status === 'delivered' ? viewsOf(note.seq) : null; })).then(function (drawn) {
            if (!entry.section.isConnected) return;
            var lists = {};
            entry.section.querySelectorAll('.place').forEach(function (place) {
              var list = place.querySelector('ol');
              list.replaceChildren();
              lists[place.classList[1]] = list;
            });
            notes.forEach(function (note, index) {
              var phone = note.phone || {};
              if (note.status !== 'delivered') { lists[isAndroid(entry.device) ? 'shade' : 'notificationCenter'].append(item(entry, note, null, false, 'pending')); return; }
              var places = isAndroid(entry.device) ? (phone.shown ? ['shade'] : []) : (phone.places || []).filter(function (p) { return p !== 'banner'; });
              if (!phone.shown) places = [];
              var hiddenIn = phone.previewHiddenIn || [];
              places.forEach(function (place) { lists[place].append(item(entry, note, drawn[index], hiddenIn.indexOf(place) >= 0, place)); });
              if (!places.length) lists.offScreen.append(item(entry, note, drawn[index], hiddenIn.indexOf('banner') >= 0, 'offScreen'));
            });
            Object.keys(lists).forEach(function (name) {
              if (!lists[name].children.length) lists[name].append(el('li', {className: 'none', text: name === 'offScreen' ? 'Nothing' : 'No notifications'}));
            });
            drawState(entry);
            if (selected && selected.key === entry.device.key) showDetails(entry, selected.seq, false);
          });
        }

        function select(entry, seq) {
          selected = {key: entry.device.key, seq: seq};
          document.querySelectorAll('.note').forEach(function (li) {
            var on = Number(li.dataset.seq) === seq;
            li.classList.toggle('selected', on);
            li.classList.toggle('open', on);
            var button = li.querySelector('.details-button');
            if (button) button.setAttribute('aria-pressed', on ? 'true' : 'false');
          });
          showDetails(entry, seq, true);
        }

        function table(rows, head) {
          var body = rows.map(function (row) { return el('tr', {}, row.map(function (cell) { return el('td', {text: cell == null ? '' : String(cell)}); })); });
          return el('table', {}, [head ? el('thead', {}, [el('tr', {}, head.map(function (h) { return el('th', {text: h}); }))]) : null, el('tbody', {}, body)]);
        }

        function facts(pairs) {
          var list = el('dl');
          pairs.forEach(function (pair) { if (pair[1] != null && pair[1] !== '') { list.append(el('dt', {text: pair[0]}), el('dd', {text: String(pair[1])})); } });
          return list;
        }

        function header(note, name) {
          var found = ((note.request || {}).headers || []).filter(function (h) { return h[0] === name; });
          return found.length ? found[0][1] : null;
        }

        function decodeJWTPart(text) {
          try { return JSON.parse(atob(text.replace(/-/g, '+').replace(/_/g, '/'))); } catch (e) { return null; }
        }

        // Who sent it, from the request as received: the client, how it authenticated, what it addressed.
        function sender(note) {
          var request = note.request || {};
          var authorization = header(note, 'authorization');
          var pairs = [['client', header(note, 'user-agent') || '(no user-agent)'], ['x-goog-api-client', header(note, 'x-goog-api-client')]];
          if (note.service === 'apns') {
            if (authorization) {
              var parts = authorization.split(' ')[1] ? authorization.split(' ')[1].split('.') : [];
              var head = parts.length >= 2 ? decodeJWTPart(parts[0]) : null;
              var claims = parts.length >= 2 ? decodeJWTPart(parts[1]) : null;
              pairs.push(['authentication', 'provider token (JWT)' + (head && head.kid ? ', key ' + head.kid : '') + (claims && claims.iss ? ', team ' + claims.iss : '')]);
            } else {
              pairs.push(['authentication', 'TLS client certificate (no authorization header)']);
            }
            pairs.push(['apns-topic', header(note, 'apns-topic')], ['apns-push-type', header(note, 'apns-push-type')]);
          } else {
            var project = (request.path || '').split('/')[3];
            pairs.push(['authentication', 'OAuth 2 access token from POST /token'], ['project', project]);
          }
          pairs.push(['over', (request.protocol || '') + ' ' + (request.method || '') + ' ' + (request.path || '')], ['answered with', note.id]);
          return facts(pairs);
        }

        function activity(result) {
          var box = el('div');
          var activity = result.extensionActivity || {};
          box.append(facts([
            ['extension ran', result.extensionInvoked ? 'yes' : 'no'],
            ['helper', result.helper ? result.helper.sdk + ' (' + result.helper.selection + ': ' + result.helper.reason + ')' : null],
            ['timings (ms)', Object.keys(result.timings || {}).map(function (k) { return k + ' ' + Math.round(result.timings[k] * 10) / 10; }).join(', ')],
          ]));
          if ((activity.requests || []).length) box.append(table(activity.requests.map(function (r) { return [r.method, r.url, r.status == null ? (r.error || 'no answer') : r.status, r.api]; }), ['method', 'URL', 'status', 'API']));
          if ((activity.handlerCalls || []).length) box.append(table(activity.handlerCalls.map(function (c) { return [JSON.stringify(c)]; }), ['content handler calls']));
          if ((activity.log || []).length) box.append(el('pre', {text: activity.log.map(function (line) { return typeof line === 'string' ? line : (line.message || JSON.stringify(line)); }).join('\n')}));
          if ((activity.files || []).length) box.append(table(activity.files.map(function (f) { return [JSON.stringify(f)]; }), ['files']));
          if (!(activity.requests || []).length && !(activity.log || []).length && !(activity.handlerCalls || []).length) box.append(el('p', {className: 'hint', text: 'The extension made no network request of its own that nse saw and wrote no log line (the built-in helper\'s download shows in the findings).'}));
          return box;
        }

        function pretty(text) {
          try { return JSON.stringify(JSON.parse(text), null, 2); } catch (e) { return text; }
        }

        function showDetails(entry, seq, focus) {
          var note = entry.notes.find(function (n) { return n.seq === seq; });
          if (!note) return;
          var phone = note.phone || {};
          return (note.status === 'delivered' ? viewsOf(seq) : Promise.resolve(null)).then(function (drawn) {
            if (!selected || selected.seq !== seq) return;
            details.replaceChildren(el('h2', {id: 'details-title', text: 'Why it looks so: ' + titleOf(note)}));
            details.dataset.seq = String(seq);
            details.append(facts([
              ['device', entry.device.name], ['service', note.service], ['received', note.receivedAt], ['status', note.status],
              ['shown', phone.shown === undefined ? null : (phone.shown ? 'yes' : 'no')],
              ['places', (phone.places || []).join(', ')], ['previews', phone.previews],
              ['previews hidden in', (phone.previewHiddenIn || []).join(', ')], ['app state', phone.appState],
              ['badge', phone.content && phone.content.badge], ['sound', phone.content && phone.content.sound],
              ['image shown', phone.imageShown === undefined ? null : (phone.imageShown ? 'yes' : 'no')], ['why', phone.why],
            ]));
            details.append(el('h3', {text: 'Verdict and findings'}));
            var card = el('div', {className: 'report'});
            card.innerHTML = drawn ? drawn.card : '<p class="hint">Still delivering: the verdict comes with the delivery.</p>';
            details.append(card);
            if (note.result) { details.append(el('h3', {text: 'The extension\'s activity'}), activity(note.result)); }
            details.append(el('h3', {text: 'Sent by'}), sender(note));
            var request = note.request || {};
            details.append(el('h3', {text: 'The request as received'}));
            details.append(el('p', {className: 'hint', text: (request.protocol || '') + ' ' + (request.method || '') + ' ' + (request.path || '')}));
            details.append(table((request.headers || []).map(function (h) { return [h[0], h[1]]; }), ['header', 'value']));
            details.append(el('pre', {className: 'request-body', text: pretty(request.body || '')}));
            if (focus) details.focus();
          });
        }

        // The send form's targets: each device's FCM token, and each topic a device subscribes to.
        function fillTargets() {
          var target = document.getElementById('send-target');
          var previous = target.value;
          target.replaceChildren();
          var topics = {};
          order.forEach(function (key) {
            var device = entries[key].device;
            if (!device.fcm) return;
            target.append(el('option', {value: JSON.stringify({token: device.fcm.token, project: device.fcm.project}), text: device.name + ' (FCM token ' + device.fcm.token.slice(0, 12) + '…)'}));
            (device.fcm.topics || []).forEach(function (topic) { topics[device.fcm.project + '\u0000' + topic] = {topic: topic, project: device.fcm.project}; });
          });
          Object.keys(topics).sort().forEach(function (k) {
            target.append(el('option', {value: JSON.stringify(topics[k]), text: 'Topic “' + topics[k].topic + '” (' + topics[k].project + ')'}));
          });
          if (!target.children.length) target.append(el('option', {value: '', text: 'No device has an FCM token'}));
          if (previous && Array.prototype.some.call(target.options, function (o) { return o.value === previous; })) target.value = previous;
        }

        var accessToken = null;
        function base64url(text) {
          return btoa(unescape(encodeURIComponent(text))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
        }
        // The emulator's own token endpoint, as a service account's token_uri: a JWT-bearer grant whose assertion
        // it does not verify (docs/serve.md), so the page needs no key.
        function token() {
          if (accessToken && accessToken.until > Date.now()) return Promise.resolve(accessToken.value);
          var now = Math.floor(Date.now() / 1000);
          var assertion = base64url(JSON.stringify({alg: 'RS256', typ: 'JWT'})) + '.' +
            base64url(JSON.stringify({iss: 'phones-page@nse-serve.invalid', scope: 'https://www.googleapis.com/auth/firebase.messaging', aud: location.origin + '/token', iat: now, exp: now + 3600})) +
            '.' + base64url('unsigned');
          var form = 'grant_type=' + encodeURIComponent('urn:ietf:params:oauth:grant-type:jwt-bearer') + '&assertion=' + assertion;
          return call('POST', '/token', form, {'content-type': 'application/x-www-form-urlencoded'}).then(function (answer) {
            if (answer.status !== 200) throw new Error('POST /token answered ' + answer.status + ': ' + answer.text);
            accessToken = {value: answer.json.access_token, until: Date.now() + (answer.json.expires_in - 60) * 1000};
            return accessToken.value;
          });
        }

        document.getElementById('send').addEventListener('submit', function (event) {
          event.preventDefault();
          var result = document.getElementById('send-result');
          result.className = '';
          var target;
          try { target = JSON.parse(document.getElementById('send-target').value); } catch (e) { target = null; }
          if (!target) { result.className = 'failed'; result.textContent = 'Choose a device or topic to send to.'; return; }
          var message = {};
          if (target.token) message.token = target.token; else message.topic = target.topic;
          var notification = {};
          ['title', 'body', 'image'].forEach(function (name) {
            var value = document.getElementById('send-' + name).value.trim();
            if (value) notification[name] = value;
          });
          if (Object.keys(notification).length) message.notification = notification;
          if (notification.image) {
            // An iPhone shows the image only through the app's service extension: mutable-content and the image
            // for Firebase's helper, as Firebase's "Send an image in the notification payload" shows.
            message.apns = {payload: {aps: {'mutable-content': 1}}, fcm_options: {image: notification.image}};
          }
          var data = {};
          var bad = [];
          document.getElementById('send-data').value.split('\n').forEach(function (line) {
            if (!line.trim()) return;
            var at = line.indexOf('=');
            if (at <= 0) { bad.push(line); return; }
            data[line.slice(0, at).trim()] = line.slice(at + 1).trim();
          });
          if (bad.length) { result.className = 'failed'; result.textContent = 'Data lines are key=value: ' + bad.join(', '); return; }
          if (Object.keys(data).length) message.data = data;
          result.textContent = 'Sending…';
          token().then(function (bearer) {
            return call('POST', '/v1/projects/' + encodeURIComponent(target.project) + '/messages:send', {message: message}, {authorization: 'Bearer ' + bearer});
          }).then(function (answer) {
            if (answer.status === 200) {
              result.textContent = 'Sent: ' + answer.json.name + '. It appears on the phone when delivered.';
            } else {
              result.className = 'failed';
              var error = (answer.json && answer.json.error) || {};
              var violations = ((error.details || []).filter(function (d) { return d.fieldViolations; })[0] || {}).fieldViolations || [];
              result.textContent = 'FCM answered ' + answer.status + ' ' + (error.status || '') + ': ' + (error.message || answer.text) +
                violations.map(function (v) { return ' ' + v.field + ': ' + v.description; }).join('');
            }
          }).catch(function (error) { result.className = 'failed'; result.textContent = String(error); });
        });

        document.getElementById('clear').addEventListener('click', function () {
          call('DELETE', api + 'state').then(function (answer) {
            live.textContent = answer.status === 204 ? 'Cleared: every push forgotten, the devices as the devices file gives them.' : 'Not cleared: ' + answer.status;
            views = {};
            selected = null;
            Object.keys(entries).forEach(function (key) { entries[key].notes = []; });
            details.replaceChildren(el('h2', {id: 'details-title', text: 'Why it looks so'}), el('p', {className: 'hint', text: 'Select a notification to see why it looks so.'}));
            load();
          });
        });

        function onEvent(event) {
          var note;
          try { note = JSON.parse(event.data); } catch (e) { return; }
          var entry = entries[note.device];
          if (!entry) { if (!loading) load(); return; }
          if (event.type === 'notification') delete views[note.seq];
          upsert(entry, note);
          redraw(entry);
        }

        var stream = new EventSource(api + 'events');
        stream.addEventListener('accepted', onEvent);
        stream.addEventListener('notification', onEvent);
        stream.onopen = function () { streaming = true; live.textContent = 'Live: pushes appear as they arrive.'; markReady(); };
        stream.onerror = function () { streaming = false; live.textContent = 'Reconnecting to the events stream…'; markReady(); };
        load();
        }());

        """#
}
