// Reloads the page every few seconds while the box is ticked, unless the
// reader is typing or has a form open; open <details> stay open.
(function () {
  var main = document.getElementById("main");
  var secs = Number(main && main.dataset.refresh);
  var box = document.getElementById("autorefresh");
  if (!secs || !box) return;
  document.getElementById("refresh-toggle").hidden = false;
  box.checked = localStorage.getItem("airlite.refresh") !== "off";
  box.addEventListener("change", function () {
    localStorage.setItem("airlite.refresh", box.checked ? "on" : "off");
  });
  var key = "airlite.open:" + location.pathname + location.search;
  JSON.parse(sessionStorage.getItem(key) || "[]").forEach(function (id) {
    var d = document.getElementById(id);
    if (d && d.tagName === "DETAILS" && !d.querySelector("form")) d.open = true;
  });
  setInterval(function () {
    var active = document.activeElement;
    if (!box.checked || document.hidden || document.querySelector("details[open] form") ||
        (active && /^(INPUT|TEXTAREA|SELECT)$/.test(active.tagName) && active !== box)) return;
    var open = Array.prototype.map.call(document.querySelectorAll("details[open][id]"), function (d) { return d.id; });
    sessionStorage.setItem(key, JSON.stringify(open));
    location.reload();
  }, secs * 1000);
})();
