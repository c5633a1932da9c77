// The page of duckcover's browser door: a login form, then a terminal (xterm.js) whose bytes
// go both ways over one WebSocket; resizes go as {"type": "resize"} text messages.
// Nothing the server or another player sends is ever put into the page as HTML: the terminal
// draws it, and the notes here are set with textContent.
"use strict";
(() => {
  const form = document.getElementById("login");
  const nameInput = document.getElementById("name");
  const status = document.getElementById("status");
  const box = document.getElementById("terminal");
  const FONT = "'DejaVu Sans Mono', 'Liberation Mono', ui-monospace, monospace";
  const MIN_COLS = 80, MIN_ROWS = 24, MAX_FONT = 18;  // the table's smallest layout, font scaled to fit
  const CODE = "\\+[A-Z2-9]{6}";  // a return code after the name (duckcover.net.server)
  const term = new Terminal({cols: MIN_COLS, rows: MIN_ROWS, fontFamily: FONT, fontSize: 14,
                             scrollback: 0, cursorBlink: false});
  window.duckTerm = term;  // the browser test reads the screen from term.buffer
  const encoder = new TextEncoder();
  let ws = null, loggedIn = false, login = "", wayBack = sessionStorage.getItem("duckcover-way-back") || "";
  let scan = null;
  term.open(box);

  function cell() {  // a character's width and a line's height per pixel of font size
    const probe = document.createElement("span");
    probe.style.cssText = "position:absolute;visibility:hidden;white-space:pre;font-size:100px;line-height:normal";
    probe.style.fontFamily = FONT;
    probe.textContent = "M".repeat(50);
    document.body.appendChild(probe);
    const box = probe.getBoundingClientRect();
    probe.remove();
    return {width: box.width / 50 / 100, height: box.height / 100};
  }

  function fit() {
    const ratio = cell();
    const width = box.clientWidth || window.innerWidth;
    const height = (box.clientHeight || window.innerHeight) - 2;
    const size = Math.max(4, Math.min(MAX_FONT, Math.floor(width / (MIN_COLS * ratio.width) * 10) / 10));
    term.options.fontSize = size;
    const cols = Math.max(MIN_COLS, Math.floor(width / (size * ratio.width)) - 1);
    const rows = Math.max(MIN_ROWS, Math.floor(height / Math.ceil(size * ratio.height)));
    if (cols !== term.cols || rows !== term.rows) term.resize(cols, rows);
  }

  function send(data) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(data);
  }

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  // The return login the table showed (`ann+K7Q2XY`), kept to say on the form if the page drops.
  function findWayBack() {
    scan = null;
    const name = login.replace(new RegExp(CODE + "$"), "");
    const pattern = new RegExp(escapeRegExp(name) + CODE);
    const buffer = term.buffer.active;
    for (let y = 0; y < buffer.length; y++) {
      const line = buffer.getLine(y);
      const found = line && line.translateToString(true).match(pattern);
      if (found) {
        wayBack = found[0];
        sessionStorage.setItem("duckcover-way-back", wayBack);
        return;
      }
    }
  }

  function connect() {
    status.textContent = "Connecting...";
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
    const socket = ws = new WebSocket(url);
    socket.binaryType = "arraybuffer";
    socket.onopen = () => {
      form.hidden = true;
      box.hidden = false;
      term.reset();
      loggedIn = false;  // the login goes first, with the size: no resize before it
      fit();
      socket.send(JSON.stringify({type: "login", name: login, cols: term.cols, rows: term.rows}));
      loggedIn = true;
      term.focus();
    };
    socket.onmessage = (event) => {
      if (typeof event.data === "string") return;
      term.write(new Uint8Array(event.data));
      if (scan === null) scan = setTimeout(findWayBack, 300);
    };
    socket.onclose = () => {
      if (ws !== socket) return;
      ws = null;
      form.hidden = false;
      nameInput.value = wayBack || login;
      status.textContent = wayBack
        ? "Disconnected. To come back to your seat, type your return login: " + wayBack
        : "Disconnected.";
    };
  }

  term.onData((data) => send(encoder.encode(data)));
  term.onBinary((data) => send(Uint8Array.from(data, (c) => c.charCodeAt(0) & 255)));
  term.onResize(({cols, rows}) => { if (loggedIn) send(JSON.stringify({type: "resize", cols, rows})); });
  window.addEventListener("resize", () => { if (!box.hidden) fit(); });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    login = nameInput.value.trim();
    if (login) connect();
  });
  if (wayBack) {
    nameInput.value = wayBack;
    status.textContent = "Your last return login: " + wayBack;
  }
  box.hidden = true;
  nameInput.focus();
})();
