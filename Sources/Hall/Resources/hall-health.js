"use strict";
// Health figures (docs/hall.md, Health): per board from its host's health report (a line on
// the tile, a STALLED badge), per node a chip in the strip under the header (up or offline,
// RSS, queue). Loaded after the page's script, whose functions it extends; it shows
// everything from the broker with textContent only, like the rest of the page.
(() => {
  const style = document.createElement("style");
  style.textContent = [
    "#nodes { display:flex; flex-wrap:wrap; gap:6px 10px; padding:6px 16px; background:#0d1115;",
    "         border-bottom:1px solid #2a333d; font-size:15px; }",
    ".nodechip { padding:2px 10px; border-radius:10px; background:#1c232b; border-left:6px solid var(--dim); }",
    ".nodechip.up { border-left-color:var(--ok); }",
    ".nodechip.down { background:#6c2bd9; border-left-color:#6c2bd9; font-weight:bold; }",
    ".nodechip.problem { border-left-color:var(--bad); }",
    ".tile .health { color:var(--dim); font-size:14px; margin-top:4px; font-variant-numeric:tabular-nums;",
    "                white-space:nowrap; overflow:hidden; text-overflow:ellipsis; }",
    ".b-stalled { background:var(--bad); } .tile.stalled { border-color:var(--bad); }",
  ].join("\n");
  document.head.appendChild(style);
  const strip = el("div");
  strip.id = "nodes";
  document.querySelector("header").after(strip);

  const num = (v) => typeof v === "number" && isFinite(v);
  const seconds = (s) => !num(s) ? "–" : s < 60 ? s.toFixed(s < 10 ? 1 : 0) + " s" :
    s < 3600 ? Math.floor(s / 60) + " min" : Math.floor(s / 3600) + " h";
  const megabytes = (b) => num(b) ? (b / 1e6).toFixed(1) + " MB" : "–";

  const baseStatus = statusOf;
  statusOf = function (board) {
    const list = baseStatus(board), h = board.health;
    if (h && h.stalled && board.host !== "offline") list.unshift(["stalled", "b-stalled", "STALLED"]);
    return list;
  };

  const baseRender = renderTile;
  renderTile = function (board) {
    baseRender(board);
    const t = hall.tiles.get(board.id);
    if (!t) return;
    if (!t.healthl) { t.healthl = el("div", "health"); t.appendChild(t.healthl); }
    const h = board.health, line = t.healthl;
    if (!h || board.host === "offline") {
      line.textContent = board.host === "offline" ? "host offline: no figures" : "no health report yet";
      for (const key of ["rssi", "reconnects", "since", "stalled"]) delete line.dataset[key];
      return;
    }
    line.dataset.rssi = num(h.rssi) ? String(h.rssi) : "";
    line.dataset.reconnects = num(h.reconnects) ? String(h.reconnects) : "";
    line.dataset.since = num(h.seconds_since_last_frame) ? String(h.seconds_since_last_frame) : "";
    line.dataset.stalled = h.stalled ? "true" : "false";
    line.textContent = "RSSI " + (num(h.rssi) ? h.rssi + " dBm" : "–") + " · " +
      (num(h.reconnects) ? h.reconnects : "–") + " reconnects · last frame " + seconds(h.seconds_since_last_frame) +
      (h.stalled ? " · STALLED" : "");
  };

  // The detail view: every figure of the board's report under its status.
  const baseDetail = refreshDetail;
  refreshDetail = async function () {
    await baseDetail();
    const board = hall.detail && hall.boards.get(hall.detail), h = board && board.health;
    if (!h || board.host === "offline") return;
    const figure = (v, unit) => num(v) ? v + unit : "–";
    const text = "Link (health report): " + (h.connection || "?") + " · RSSI " + figure(h.rssi, " dBm") + " · " +
      figure(h.notifications_per_second, " frames/s") + " · last frame " + seconds(h.seconds_since_last_frame) +
      " · " + figure(h.reconnects, " reconnects") + " · " + figure(h.missing_acks, " missing acks") +
      (h.stalled ? " · STALLED" : "");
    const line = el("div", "d-health", text);
    $("d-status").appendChild(line);
  };

  // One chip per node, kept and refilled on every layout (not rebuilt), so a reader of the
  // strip (a person selecting text, a screen reader, a test) never holds a detached element.
  const chips = new Map();
  function nodeChip(n) {
    const h = n.health, offline = n.state === "offline";
    let chip = chips.get(n.name);
    if (!chip) { chip = el("span"); chip.dataset.node = n.name; chips.set(n.name, chip); }
    chip.className = "nodechip " + (n.up ? "up" : offline ? "down" : "stale");
    chip.dataset.up = n.up ? "1" : "0";
    delete chip.dataset.rss;
    delete chip.dataset.queued;
    let text = n.name + " ";
    if (offline) text += "OFFLINE";
    else if (!h) text += "no health report";
    else {
      text += (n.up ? "up" : "report stale") + " · RSS " + megabytes(h.rss_bytes) + " · queue " +
        (num(h.mqtt_queued) ? h.mqtt_queued : "–");
      if (num(h.mqtt_dropped) && h.mqtt_dropped > 0) text += " · dropped " + h.mqtt_dropped;
      if (h.mqtt_connected === false) text += " · BROKER DOWN";
      if (h.state_directory_problem) { text += " · STATE DIRECTORY PROBLEM"; chip.classList.add("problem"); }
      chip.dataset.rss = num(h.rss_bytes) ? String(h.rss_bytes) : "";
      chip.dataset.queued = num(h.mqtt_queued) ? String(h.mqtt_queued) : "";
    }
    const count = Array.isArray(n.boards) ? n.boards.length : 0;
    text += " · " + count + (count === 1 ? " board" : " boards");
    chip.textContent = text;
    return chip;
  }

  const baseLayout = layout;
  layout = function () {
    baseLayout();
    const names = [...hall.nodes.keys()].sort();
    for (const name of [...chips.keys()]) if (!hall.nodes.has(name)) chips.delete(name);
    const wanted = names.map((name) => nodeChip(hall.nodes.get(name)));
    if (wanted.length !== strip.children.length || wanted.some((chip, i) => strip.children[i] !== chip))
      strip.replaceChildren(...wanted);
  };
})();
