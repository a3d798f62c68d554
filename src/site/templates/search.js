// Search in the browser over the index in search/data.js (loaded as a script, so it works
// from disk too; each entry is [link, name, id, enum values, text]): every word of the query must match a record's id, name, enum values or
// text; matches on the id and name rank first.
(function () {
  "use strict";
  var data = window.gotchasSearch;
  var root = document.documentElement.getAttribute("data-root") || "";
  var input = document.getElementById("q");
  var status = document.getElementById("search-status");
  var list = document.getElementById("results");
  var query = (new URLSearchParams(window.location.search).get("q") || "").trim();
  input.value = query;
  if (!data) {
    status.textContent = "The search index did not load.";
    return;
  }
  if (!query) {
    status.textContent = "Search " + data.entries.length + " records and pages by id, name, value or text.";
    input.focus();
    return;
  }
  var LIMIT = 100;
  var words = query.toLowerCase().split(/\s+/).filter(Boolean);

  function scoreWord(entry, word) {
    var id = entry.id, bare = id.slice(id.lastIndexOf("/") + 1), name = entry.name;
    if (bare === word || id === word) return 100;
    if (name === word) return 90;
    if (bare.indexOf(word) === 0) return 60;
    if (name.indexOf(word) === 0) return 50;
    if (id.indexOf(word) >= 0) return 40;
    if (name.indexOf(word) >= 0) return 30;
    if (entry.values.indexOf(" " + word + " ") >= 0) return 20;
    if (entry.text.indexOf(word) >= 0) return 5;
    return 0;
  }

  var found = [];
  data.entries.forEach(function (row, index) {
    var entry = {
      id: row[2].toLowerCase(),
      name: row[1].toLowerCase(),
      values: " " + row[3].toLowerCase() + " ",
      text: row[4].toLowerCase()
    };
    var total = 0;
    for (var i = 0; i < words.length; i += 1) {
      var score = scoreWord(entry, words[i]);
      if (!score) return;
      total += score;
    }
    found.push([total, index]);
  });
  found.sort(function (a, b) { return b[0] - a[0] || a[1] - b[1]; });

  status.textContent = found.length === 0
    ? "No record or page matches “" + query + "”."
    : (found.length > LIMIT ? "The first " + LIMIT + " of " : "") + found.length +
      (found.length === 1 ? " result" : " results") + " for “" + query + "”.";

  function snippet(text) {
    var lower = text.toLowerCase(), at = -1, word = "";
    for (var i = 0; i < words.length && at < 0; i += 1) {
      at = lower.indexOf(words[i]);
      word = words[i];
    }
    var p = document.createElement("p");
    p.className = "snippet";
    if (at < 0) {
      p.textContent = text.slice(0, 180) + (text.length > 180 ? "…" : "");
      return p;
    }
    var start = Math.max(0, at - 80), end = Math.min(text.length, at + word.length + 100);
    p.appendChild(document.createTextNode((start > 0 ? "…" : "") + text.slice(start, at)));
    var mark = document.createElement("mark");
    mark.textContent = text.slice(at, at + word.length);
    p.appendChild(mark);
    p.appendChild(document.createTextNode(text.slice(at + word.length, end) + (end < text.length ? "…" : "")));
    return p;
  }

  found.slice(0, LIMIT).forEach(function (hit) {
    var row = data.entries[hit[1]];
    var li = document.createElement("li");
    var a = document.createElement("a");
    a.className = "result-name";
    a.href = root + row[0];
    a.textContent = row[1];
    li.appendChild(a);
    var meta = document.createElement("div");
    meta.className = "result-meta";
    var code = document.createElement("code");
    code.textContent = row[2];
    meta.appendChild(code);
    row[3].split(" ").filter(Boolean).forEach(function (value) {
      var badge = document.createElement("span");
      badge.className = "badge";
      badge.textContent = value;
      meta.appendChild(badge);
    });
    li.appendChild(meta);
    if (row[4]) li.appendChild(snippet(row[4]));
    list.appendChild(li);
  });
})();
