// The JS bridge: what a canvas cannot do by itself. Extends window.vramlens (index.html).
//   app -> page:  vramlens._out(kind, a, b, c, x, y, w, h)  (web/ui/page_bridge.cpp)
//                 fragment: keep the scenario in the URL; b "push": a new history entry (debounced), else replaced
//                 copy: clipboard; download: a file; height: embed mode tells the parent page; open: new tab;
//                 results: the results as text for the HTML mirror (#vl-results), when they change
//   page -> app:  vramlens.send(kind, key, text) -> vl_event: paste, drop (config.json / links),
//                 hash (the user edited the URL), text (the phone text box), text_done; mmproj (a projector
//                 .gguf's header, from the file picker the app's "mmproj" request opens).
//                 The text goes through the wasm heap (ccall's "string" copies onto the small wasm
//                 stack, which a pasted file overflows); text over vramlens.maxInputBytes (the core's
//                 kMaxJsonInputBytes, set by the app at start) is not copied: the app gets
//                 "refused" with its size and says so.
//   the page asks the app about a browser event under way (synchronous calls): vl_text_active (keys),
//                 vl_field_selection (copy, cut), vl_wheel_scrolls (wheel), vl_drag_scrolls (touch);
//                 vl_touch_cancel: the touch ending was the browser's (it scrolled the page), so it is no tap.
// The page stays a web page: the app takes only the keys, wheels and touches it uses (below).
// Test hook additions: vramlens.state(), item(key), lastCopied, lastDownload, contentHeight.
"use strict";
(function () {
  var v = window.vramlens;
  var canvas = document.getElementById("canvas");
  var lastHash = location.hash;
  var inFrame = window.parent !== window;
  var touchSlop = 8;  // CSS px a finger may move before a touch is a drag (web/ui/scrolling.h kTouchSlop)
  // SDL cancels the browser's default of the events it handles; for one the app does not use, that
  // cancel is made a no-op, so the app still sees the event and the browser still acts on it.
  function keepDefault(e) { e.preventDefault = function () {}; }

  // vl_event(kind, key, text, length) with the text copied into the heap, freed after the call.
  function post(kind, key, text, bytes) {
    var p = Module._malloc(bytes + 1);
    if (!p) return false;
    try {
      Module.stringToUTF8(text, p, bytes + 1);
      Module.ccall("vl_event", null, ["string", "string", "number", "number"], [kind, key, p, bytes]);
    } finally {
      Module._free(p);
    }
    return true;
  }
  function send(kind, key, text) {
    if (!v.ready) return;
    text = text || "";
    // UTF-8 takes at least one byte per UTF-16 unit: a string longer than the limit is over it.
    var n = text.length > v.maxInputBytes ? text.length : Module.lengthBytesUTF8(text);
    if (n > v.maxInputBytes || !post(kind, key || "", text, n)) refuse(kind, n);
    v.wake();
  }
  // The app says the input was too large, with its size and the limit; nothing else happens.
  function refuse(kind, bytes) {
    if (!v.ready) return;
    var s = String(bytes);
    post("refused", kind, s, s.length);
    v.wake();
  }
  // ---- import by repo id (web/ui/hub.h): only on the app's "hub" request, i.e. the user's click ----
  // The token (b) goes in an Authorization header to the endpoint only; the browser drops it when the
  // Hub redirects a large file to its CDN (another origin). Each safetensors header is one single
  // Range request (no preflight needed for it); a GGUF header is read in growing ranges.
  var kFirstRange = 65536, kGgufFirst = 1 << 20, kGgufMax = 256 << 20;
  function heap(bytes) {
    var p = Module._malloc(Math.max(1, bytes.length));
    Module.HEAPU8.set(bytes, p);
    return p;
  }
  // How many bytes a GGUF header needs (vl_gguf_needs): 0 when these hold it.
  function ggufNeeds(bytes, size) {
    var p = heap(bytes);
    try { return Module.ccall("vl_gguf_needs", "number", ["number", "number", "number"], [p, bytes.length, size]); } finally { Module._free(p); }
  }
  function HubFailure(status, code, retry, file, detail) {
    this.status = status; this.code = code || ""; this.retry = retry || ""; this.file = file || ""; this.detail = detail || "";
  }
  function hubImport(req, token) {
    var ep = String(req.endpoint).replace(/\/+$/, "");
    var enc = encodeURIComponent;
    var auth = token ? { Authorization: "Bearer " + token } : {};
    function get(url, file, headers) {
      var h = Object.assign({}, auth, headers || {});
      return fetch(url, { headers: h, credentials: "omit", cache: "no-store" }).then(function (r) {
        if (!r.ok) throw new HubFailure(r.status, r.headers.get("X-Error-Code"), r.headers.get("Retry-After"), file, "");
        return r;
      }, function (e) { throw new HubFailure(0, "", "", file, String((e && e.message) || e)); });
    }
    function fileUrl(repo, rev, f) { return ep + "/" + repo + "/resolve/" + enc(rev) + "/" + f.split("/").map(enc).join("/"); }
    function text(repo, rev, f) { return get(fileUrl(repo, rev, f), f).then(function (r) { return r.text(); }); }
    // The first `n` bytes and the file's size (Content-Range's total; a server ignoring Range sends it all).
    function head(repo, rev, f, n) {
      return get(fileUrl(repo, rev, f), f, { Range: "bytes=0-" + (n - 1) }).then(function (r) {
        var cr = r.headers.get("Content-Range"), m = cr && /\/(\d+)$/.exec(cr);
        return r.arrayBuffer().then(function (buf) {
          var bytes = new Uint8Array(buf);
          return { bytes: r.status === 206 ? bytes : bytes.subarray(0, n), size: m ? Number(m[1]) : bytes.length };
        });
      });
    }
    function giveHead(name, bytes) {
      var p = heap(bytes);
      try { Module.ccall("vl_hub_head", null, ["string", "number", "number"], [name, p, bytes.length]); } finally { Module._free(p); }
    }
    function safetensorsHead(repo, rev, f) {
      return head(repo, rev, f, kFirstRange).then(function (h) {
        if (h.bytes.length < 8) return h;
        var dv = new DataView(h.bytes.buffer, h.bytes.byteOffset, 8);
        var need = 8 + dv.getUint32(0, true) + dv.getUint32(4, true) * 4294967296;
        if (need <= h.bytes.length || need > h.size) return h;
        return head(repo, rev, f, need);
      });
    }
    function ggufHead(repo, rev, f, n) {
      return head(repo, rev, f, n).then(function (h) {
        var more = ggufNeeds(h.bytes, h.size);
        if (more > 0 && h.bytes.length < h.size && n < kGgufMax) return ggufHead(repo, rev, f, Math.min(more, h.size, kGgufMax));
        return h;
      });
    }
    var out = { repo: req.repo, revision: req.revision, file: req.file || "" };
    get(ep + "/api/models/" + req.repo + "/revision/" + enc(req.revision), "").then(function (r) { return r.json(); }).then(function (info) {
      var rev = info.sha || req.revision;
      out.revision = rev;
      var names = (info.siblings || []).map(function (s) { return s.rfilename; });
      var has = function (f) { return names.indexOf(f) >= 0; };
      if (info.safetensors && info.safetensors.parameters) out.api_parameters = info.safetensors.parameters;
      var gguf = /\.gguf$/i.test(out.file) ? out.file : "";
      if (!gguf && !has("config.json") && !has("adapter_config.json"))
        gguf = names.filter(function (f) { return /\.gguf$/i.test(f); }).sort()[0] || "";
      if (gguf)
        return ggufHead(req.repo, rev, gguf, kGgufFirst).then(function (h) {
          giveHead(gguf, h.bytes);
          out.gguf = { name: gguf, size: h.size };
        });
      var steps = [];
      if (has("config.json")) steps.push(text(req.repo, rev, "config.json").then(function (t) { out.config = t; }));
      if (has("adapter_config.json"))
        steps.push(text(req.repo, rev, "adapter_config.json").then(function (t) {
          out.adapter = t;
          var base = "";
          try { base = JSON.parse(t).base_model_name_or_path || ""; } catch (e) {}
          if (!has("config.json") && /^[\w.-]+\/[\w.-]+$/.test(base))
            return text(base, "main", "config.json").then(function (c) { out.config = c; }, function (e) {
              if (e instanceof HubFailure) e.file = "config.json of the base model " + base;
              throw e;
            });
        }));
      var shards = names.filter(function (f) { return /\.safetensors$/.test(f) && !/^adapter_model/.test(f); });
      var shardList = has("model.safetensors.index.json")
        ? text(req.repo, rev, "model.safetensors.index.json").then(function (t) {
            out.index = t;
            var map = {};
            try { map = JSON.parse(t).weight_map || {}; } catch (e) {}
            var seen = [];
            Object.keys(map).forEach(function (k) { if (seen.indexOf(map[k]) < 0) seen.push(map[k]); });
            return seen;
          })
        : Promise.resolve(shards);
      steps.push(shardList.then(function (list) {
        out.shards = [];
        out.missing_shards = [];
        return Promise.all(list.map(function (f) {
          if (!has(f)) { out.missing_shards.push(f); return null; }
          return safetensorsHead(req.repo, rev, f).then(function (h) {
            giveHead(f, h.bytes);
            out.shards.push({ name: f, size: h.size });
          });
        }));
      }));
      return Promise.all(steps);
    }).then(function () {
      var s = JSON.stringify(out), n = Module.lengthBytesUTF8(s) + 1, p = Module._malloc(n);
      Module.stringToUTF8(s, p, n);
      try { Module.ccall("vl_hub_done", null, ["number"], [p]); } finally { Module._free(p); }
      v.wake();
    }).catch(function (e) {
      var f = e instanceof HubFailure ? e : new HubFailure(0, "", "", "", String((e && e.message) || e));
      Module.ccall("vl_hub_failed", null, ["number", "string", "string", "string", "string"], [f.status, f.code, f.retry, f.file, f.detail]);
      v.wake();
    });
  }

  // ---- a vision projector's .gguf from disk (web/ui/run_local_advanced.cpp): the picker opens only on the app's "mmproj"
  // request, i.e. the user's click; only the header is read (growing slices, as for the Hub), then handed to the app as
  // vl_event "mmproj" with the file's name ----
  var mmprojInput = null;
  function mmprojHead(f, n) {
    f.slice(0, n).arrayBuffer().then(function (buf) {
      var bytes = new Uint8Array(buf), more = ggufNeeds(bytes, f.size);
      if (more > 0 && n < f.size && n < kGgufMax) return mmprojHead(f, Math.min(more, f.size, kGgufMax));
      var p = heap(bytes);
      try { Module.ccall("vl_event", null, ["string", "string", "number", "number"], ["mmproj", f.name, p, bytes.length]); } finally { Module._free(p); }
      v.wake();
    }).catch(function (e) {  // the file moved, was deleted or is unreadable since it was picked: the app says so
      var why = new TextEncoder().encode(String((e && (e.message || e.name)) || e)), p = heap(why);
      try { Module.ccall("vl_event", null, ["string", "string", "number", "number"], ["mmproj_error", f.name, p, why.length]); } finally { Module._free(p); }
      v.wake();
    });
  }
  function pickMmproj() {
    if (!mmprojInput) {
      mmprojInput = document.createElement("input");
      mmprojInput.type = "file";
      mmprojInput.accept = ".gguf";
      mmprojInput.id = "vl-mmproj";
      mmprojInput.hidden = true;
      document.body.appendChild(mmprojInput);
      mmprojInput.addEventListener("change", function () {
        var f = mmprojInput.files && mmprojInput.files[0];
        mmprojInput.value = "";
        if (f && v.ready) mmprojHead(f, Math.min(kGgufFirst, Math.max(1, f.size)));
      });
    }
    mmprojInput.click();
  }

  v.send = send;
  v.lastCopied = null;
  v.lastDownload = null;
  v.contentHeight = 0;
  v.env = null;
  v.state = function () { return v.estimate(); };
  v.item = function (key) {
    var it = v.estimate().items[key];
    return it ? { x: it[0], y: it[1], w: it[2], h: it[3], cx: it[0] + it[2] / 2, cy: it[1] + it[3] / 2 } : null;
  };
  v._env = function (env) { v.env = env; };

  function copyText(text) {
    v.lastCopied = text;
    function fallback() {
      var t = document.createElement("textarea");
      t.value = text;
      t.style.position = "fixed"; t.style.opacity = "0";
      document.body.appendChild(t);
      t.select();
      try { document.execCommand("copy"); } catch (e) { /* nothing more to try */ }
      document.body.removeChild(t);
      canvas.focus({ preventScroll: true });
    }
    if (navigator.clipboard && navigator.clipboard.writeText) navigator.clipboard.writeText(text).catch(fallback);
    else fallback();
  }

  function download(name, mime, text) {
    v.lastDownload = { name: name, mime: mime, text: text };
    var url = URL.createObjectURL(new Blob([text], { type: mime }));
    var a = document.createElement("a");
    a.href = url; a.download = name;
    document.body.appendChild(a); a.click(); document.body.removeChild(a);
    setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
  }

  // History: a new link the app marks "push" (another model, mode or GPU; an import) is a new entry,
  // so Back returns to the scenario before it; pushes closer together than historyQuietMs (typing a
  // name, a quick run of clicks) share one entry. Any other link replaces the current entry's. An
  // embed never adds entries: the history is the host page's. The quiet time is a property of the
  // page object so that a test can widen it and check the rule without racing the clock.
  v.historyQuietMs = 1000;
  var lastPush = -Infinity;
  function showLink(fragment, push) {
    var url = location.pathname + location.search + "#" + fragment, now = performance.now();
    var embedded = inFrame || (v.env && v.env.embed);
    if (push && !embedded && now - lastPush > v.historyQuietMs) history.pushState(null, "", url);
    else history.replaceState(null, "", url);
    if (push) lastPush = now;
    lastHash = location.hash;
  }

  v._out = function (kind, a, b, c, x, y, w, h) {
    if (kind === "fragment") showLink(a, b === "push");
    else if (kind === "copy") copyText(a);
    else if (kind === "download") download(a, b, c);
    else if (kind === "height") {
      v.contentHeight = h;
      if (window.parent !== window) window.parent.postMessage({ vramlens_height: Math.ceil(h) }, "*");
    } else if (kind === "open") window.open(a, "_blank", "noopener");
    else if (kind === "hub") hubImport(JSON.parse(a), b);
    else if (kind === "mmproj") pickMmproj();
    else if (kind === "results") showResults(JSON.parse(a));
    else if (kind === "prefs") {  // the user chose them: the next visit starts so
      try { localStorage.setItem("vramlens.lang", a); localStorage.setItem("vramlens.theme", b); } catch (e) {}
    }
  };

  // The results as text (index.html #vl-results): what the app sends (web/ui/app.h results_text_json),
  // every word and number as the canvas shows it, put in as text. The verdict is a live region, so a
  // screen reader says it when it changes; the button "Results as text" shows it all as a panel.
  var results = document.getElementById("vl-results");
  var showButton = document.getElementById("vl-show-text"), hideButton = document.getElementById("vl-hide-text");
  function setText(el, text) { if (el.textContent !== text) el.textContent = text; }
  function fillRow(tr, cells, head) {
    while (tr.firstChild) tr.removeChild(tr.firstChild);
    cells.forEach(function (t, i) {
      var c = document.createElement(head || i === 0 ? "th" : "td");
      if (c.tagName === "TH") c.scope = head ? "col" : "row";
      c.textContent = t;
      tr.appendChild(c);
    });
  }
  function fillList(box, title, items) {
    box.hidden = items.length === 0;
    setText(box.querySelector("h3"), title);
    var ul = box.querySelector("ul");
    while (ul.firstChild) ul.removeChild(ul.firstChild);
    items.forEach(function (t) { var li = document.createElement("li"); li.textContent = t; ul.appendChild(li); });
  }
  function showResults(r) {
    results.hidden = false;  // the app's own answer (index.html hides the default's for a link)
    document.documentElement.lang = r.lang === "zh" ? "zh-Hans" : "en";
    setText(document.getElementById("vl-results-title"), r.title);
    setText(document.getElementById("vl-verdict"), r.verdict);
    setText(document.getElementById("vl-total"), r.total);
    var table = document.getElementById("vl-table");
    table.hidden = r.rows.length === 0;
    fillRow(table.tHead.rows[0], r.headers, true);
    var body = table.tBodies[0];
    while (body.firstChild) body.removeChild(body.firstChild);
    r.rows.forEach(function (cells) { fillRow(body.insertRow(), cells, false); });
    fillRow(table.tFoot.rows[0], r.total_row, false);
    fillList(document.getElementById("vl-errors"), r.errors_title, r.errors);
    fillList(document.getElementById("vl-notes"), r.notes_title, r.notes);
  }
  function showPanel(on) {
    results.className = on ? "vl-shown" : "vl-hidden";
    showButton.setAttribute("aria-expanded", on ? "true" : "false");
    if (on) hideButton.focus();
    else canvas.focus({ preventScroll: true });
  }
  showButton.setAttribute("aria-expanded", "false");
  showButton.addEventListener("click", function () { showPanel(results.className !== "vl-shown"); });
  hideButton.addEventListener("click", function () { showPanel(false); });
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape" && results.className === "vl-shown" && e.target !== canvas) showPanel(false);
  });

  // The user edited the URL or pressed Back/Forward: load that link.
  window.addEventListener("hashchange", function () {
    lastPush = -Infinity;  // the next change is a new entry after this one
    if (location.hash !== lastHash) { lastHash = location.hash; send("hash", "", location.hash); }
  });

  // Keys reach the app only while the canvas has the keyboard (SDL listens on it). SDL cancels the
  // default of every key pressed with Ctrl, of Tab, Backspace, the arrows and F1-F15, and of every
  // key release; only the keys the app uses stay cancelled. The others keep their default: zoom
  // (Ctrl+=/-/0), find (Ctrl+F), the address bar (Ctrl+L), reload (F5), Alt+Left/Right (history),
  // AltGr characters, and Ctrl+C/X/V, whose copy, cut and paste events carry the text (below).
  function textActive() { return v.ready && Module._vl_text_active() === 1; }
  function appUsesKey(e) {
    if (e.altKey || /^F\d+$/.test(e.key)) return false;
    if (!e.ctrlKey && !e.metaKey) return e.key !== "Backspace" || textActive();  // typing, keyboard navigation
    if (!textActive()) return false;
    // Dear ImGui's text editing: select all, undo, redo, moves and deletes by word, to the start or end.
    if (!e.shiftKey && (e.code === "KeyA" || e.code === "KeyZ" || e.code === "KeyY")) return true;
    return /^(ArrowLeft|ArrowRight|ArrowUp|ArrowDown|Home|End|Backspace|Delete)$/.test(e.key);
  }
  function filterKey(e) {
    if (e.target !== canvas) return;
    // Tab on the app's last control (Shift+Tab on its first) is the page's: the browser moves the
    // focus on, and the app does not see the key (no keyboard trap).
    if (e.key === "Tab" && !e.ctrlKey && !e.altKey && !e.metaKey && v.ready && Module._vl_tab_leaves(e.shiftKey ? -1 : 1) === 1) {
      e.stopPropagation();
      return;
    }
    if (!appUsesKey(e)) keepDefault(e);
  }
  // Leaving forgets that a control was chosen (keyboard.h). Coming back by Tab focuses the first
  // control, by Shift+Tab the last: the key down as the canvas gets the focus says which.
  canvas.addEventListener("blur", function () { if (v.ready) { Module._vl_keyboard_left(); v.wake(); } });
  window.addEventListener("keydown", function (e) {
    if (e.key !== "Tab" || e.target === canvas || !v.ready) return;
    var dir = e.shiftKey ? -1 : 1;  // the browser moves the focus after this: then see where it went
    setTimeout(function () { if (document.activeElement === canvas) { Module._vl_keyboard_entered(dir); v.wake(); } }, 0);
  }, true);
  window.addEventListener("keydown", filterKey, true);
  window.addEventListener("keyup", filterKey, true);

  // Copy and cut in a text field are the browser's own events: the event carries what Dear ImGui's
  // Ctrl+C / Ctrl+X takes from the field (ImGui sees the same keys and deletes what is cut). With
  // nothing selected on the page, Chromium and WebKit fire them only when "beforecopy"/"beforecut"
  // was cancelled. Outside a field the browser copies as on any page.
  function fieldText(cut) {
    if (!v.ready || document.activeElement !== canvas) return null;
    var r = Module.UTF8ToString(Module._vl_field_selection(cut ? 1 : 0));
    return r.charAt(0) === "1" ? r.slice(1) : null;
  }
  ["copy", "cut"].forEach(function (kind) {
    document.addEventListener("before" + kind, function (e) { if (fieldText(kind === "cut") !== null) e.preventDefault(); });
    document.addEventListener(kind, function (e) {
      var t = fieldText(kind === "cut");
      if (t === null || !e.clipboardData) return;
      e.clipboardData.setData("text/plain", t);
      e.preventDefault();
    });
  });
  // Paste anywhere: a config.json (or a vramlens link) imports; in a text field, Dear ImGui's Ctrl+V
  // inserts the text this event brings (vl_event "paste" sets its clipboard first).
  document.addEventListener("beforepaste", function (e) { if (e.target === canvas) e.preventDefault(); });
  document.addEventListener("paste", function (e) {
    if (e.target === box || e.target === area) return;
    var t = e.clipboardData && e.clipboardData.getData("text");
    if (t) { send("paste", "", t); e.preventDefault(); }
  });

  // Wheel: the app takes it only where it scrolls something; elsewhere (an embed with nothing to
  // scroll, a list at its end) the browser scrolls the page. Ctrl+wheel (and a trackpad pinch) is
  // the browser's zoom and never reaches the app.
  window.addEventListener("wheel", function (e) {
    if (e.target !== canvas) return;
    if (e.ctrlKey) { e.stopPropagation(); return; }
    var r = canvas.getBoundingClientRect();
    if (!v.ready || !Module._vl_wheel_scrolls(e.clientX - r.left, e.clientY - r.top, e.deltaX, e.deltaY, e.shiftKey ? 1 : 0))
      keepDefault(e);
  }, { capture: true, passive: true });
  // Touch, in a frame: a touch over nothing the app scrolls is the browser's too (a swipe scrolls
  // the page around the embed). The app sees it, but a touch the browser took (it scrolled:
  // pointercancel) or cancelled is no tap: vl_touch_cancel, as it ends, before SDL sees its end.
  var browserTook = false;
  window.addEventListener("touchstart", function (e) {
    if (e.target !== canvas || !inFrame || !v.ready) return;
    var t = e.changedTouches[0], r = canvas.getBoundingClientRect();
    if (!Module._vl_drag_scrolls(t.clientX - r.left, t.clientY - r.top)) keepDefault(e);
  }, { capture: true, passive: true });
  canvas.addEventListener("pointercancel", function (e) { if (e.pointerType === "touch") browserTook = true; });
  ["touchend", "touchcancel"].forEach(function (type) {
    window.addEventListener(type, function (e) {
      if (e.target !== canvas) return;
      if ((browserTook || type === "touchcancel") && v.ready) Module._vl_touch_cancel();
      if (e.touches.length === 0) browserTook = false;
    }, true);
  });

  // Drop a config.json file (or text) on the page.
  document.addEventListener("dragover", function (e) { e.preventDefault(); });
  document.addEventListener("drop", function (e) {
    e.preventDefault();
    var dt = e.dataTransfer;
    if (dt && dt.files && dt.files.length) {
      var f = dt.files[0];
      if (f.size > v.maxInputBytes) refuse("drop", f.size);  // not read at all
      else f.text().then(function (t) { send("drop", "", t); });
    }
    else if (dt) { var t = dt.getData("text"); if (t) send("drop", "", t); }
  });

  // Phones: a canvas gets no on-screen keyboard. A tap on a text field opens a real <input> over it
  // (focused inside the tap's own handler, which is what lets the keyboard appear).
  var box = document.getElementById("vl-text"), area = document.getElementById("vl-area");
  var editing = null, editor = null;
  function closeEditor() {
    if (!editing) return;
    var key = editing.key;
    editor.style.display = "none";
    editing = null;
    send("text_done", key, "");
  }
  function openEditor(f) {
    editing = f;
    editor = f.kind === "multiline" ? area : box;
    var r = canvas.getBoundingClientRect();
    editor.style.left = (r.left + f.x) + "px";
    editor.style.top = (r.top + f.y) + "px";
    editor.style.width = f.w + "px";
    editor.style.height = f.h + "px";
    if (editor === box) {
      box.inputMode = f.kind === "number" ? "decimal" : "text";
      box.type = f.kind === "password" ? "password" : "text";
    }
    editor.value = f.value;
    editor.style.display = "block";
    editor.focus();
    editor.select && editor.select();
  }
  function onInput() { if (editing) send("text", editing.key, editor.value); }
  [box, area].forEach(function (el) {
    el.addEventListener("input", onInput);
    el.addEventListener("blur", closeEditor);
    el.addEventListener("keydown", function (e) {
      if (e.key === "Escape" || (e.key === "Enter" && el === box)) { e.preventDefault(); el.blur(); }
    });
  });
  // SDL cancels the default of mouse events, which would have focused the canvas: keys go to the
  // canvas (SDL_HINT_EMSCRIPTEN_KEYBOARD_ELEMENT), so focus it on every press, without scrolling
  // (in an embed taller than the window, focusing would scroll the host page to show all of it).
  var downAt = null;
  canvas.addEventListener("pointerdown", function (e) {
    downAt = [e.clientX, e.clientY];
    if (document.activeElement !== canvas) canvas.focus({ preventScroll: true });
  });
  canvas.addEventListener("pointerup", function (e) {
    if (!v.ready || !(e.pointerType === "touch" || (v.env && v.env.touch))) return;
    var from = downAt;
    downAt = null;
    if (from && Math.hypot(e.clientX - from[0], e.clientY - from[1]) > touchSlop) return;  // a drag: a scroll, not a tap
    var r = canvas.getBoundingClientRect();
    var hit = Module.ccall("vl_text_field_at", "string", ["number", "number"], [e.clientX - r.left, e.clientY - r.top]);
    if (hit) openEditor(JSON.parse(hit));
  });
})();
