// Record tables: sort by a column, filter by typing. The table is complete without this
// script; it only adds the controls.
(function () {
  "use strict";
  var collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

  function cellText(row, column) {
    var cell = row.cells[column];
    return cell ? cell.textContent.trim() : "";
  }

  document.querySelectorAll("table.sortable").forEach(function (table) {
    var body = table.tBodies[0];
    var headers = Array.prototype.slice.call(table.tHead.rows[0].cells);
    headers.forEach(function (th, column) {
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = th.textContent;
      th.textContent = "";
      th.appendChild(button);
      button.addEventListener("click", function () {
        var ascending = th.getAttribute("aria-sort") !== "ascending";
        headers.forEach(function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = cellText(a, column), y = cellText(b, column);
          if (x === y) return 0;
          if (!x) return 1;
          if (!y) return -1;
          return ascending ? collator.compare(x, y) : collator.compare(y, x);
        });
        var fragment = document.createDocumentFragment();
        rows.forEach(function (row) { fragment.appendChild(row); });
        body.appendChild(fragment);
      });
    });
  });

  document.querySelectorAll("input[data-filter]").forEach(function (input) {
    var table = document.getElementById(input.getAttribute("data-filter"));
    if (!table) return;
    var tools = input.closest(".table-tools");
    if (tools) tools.hidden = false;
    var count = document.querySelector('[data-filter-count="' + table.id + '"]');
    var rows = Array.prototype.slice.call(table.tBodies[0].rows);
    var texts = rows.map(function (row) { return row.textContent.toLowerCase(); });
    function apply() {
      var words = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      rows.forEach(function (row, i) {
        var match = words.every(function (word) { return texts[i].indexOf(word) >= 0; });
        row.hidden = !match;
        if (match) shown += 1;
      });
      if (count) count.textContent = words.length ? shown + " of " + rows.length : "";
    }
    input.addEventListener("input", apply);
    apply();
  });
})();
