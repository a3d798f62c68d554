// The graph explorer: the corpus graph from graph/data.js (the same nodes and edges as
// graph.json, loaded as a script so it works from disk too), laid out in the browser with a
// small force simulation. Small graphs are shown whole; in a large one the view is a
// record's neighbourhood, chosen with the search box, a click, or `?focus=<id>`.
(function () {
  "use strict";
  var data = window.gotchasGraph;
  var svg = document.getElementById("graph");
  var status = document.getElementById("graph-status");
  var panel = document.getElementById("graph-panel");
  var input = document.getElementById("graph-q");
  var matches = document.getElementById("graph-matches");
  var legend = document.getElementById("graph-legend");
  var root = document.documentElement.getAttribute("data-root") || "";
  var NS = "http://www.w3.org/2000/svg";
  var MAX_SHOWN = 400;
  var PALETTE = ["#2f81f7", "#2da44e", "#d29922", "#db61a2", "#8250df", "#0598bc", "#e5534b",
    "#6e9f18", "#a371f7", "#e16f24"];
  var PAGE_COLOUR = "#8c959f";
  if (!data) {
    status.textContent = "The graph data did not load.";
    return;
  }

  // nodes: [id, name, collection index or -1 for a page, link]; edges: [from, to, field index]
  var nodes = data.nodes, count = nodes.length;
  var byId = {};
  var neighbours = nodes.map(function () { return []; });
  var outgoing = nodes.map(function () { return []; });
  nodes.forEach(function (node, i) { byId[node[0]] = i; });
  data.edges.forEach(function (edge) {
    outgoing[edge[0]].push(edge[1]);
    neighbours[edge[0]].push(edge[1]);
    neighbours[edge[1]].push(edge[0]);
  });

  function colour(i) {
    var c = nodes[i][2];
    return c < 0 ? PAGE_COLOUR : PALETTE[c % PALETTE.length];
  }

  data.collections.forEach(function (name, c) {
    var li = document.createElement("li");
    var dot = document.createElement("span");
    dot.style.background = PALETTE[c % PALETTE.length];
    li.appendChild(dot);
    li.appendChild(document.createTextNode(name));
    legend.appendChild(li);
  });

  // A record and its neighbours, then neighbours of neighbours while the picture stays
  // small: at most NEAR nodes beyond the first ring, MAX_SHOWN in all.
  var NEAR = 60;
  function around(center) {
    var seen = {}, order = [center];
    seen[center] = true;
    function add(node, limit) {
      if (!seen[node] && order.length < limit) {
        seen[node] = true;
        order.push(node);
      }
    }
    neighbours[center].forEach(function (node) { add(node, MAX_SHOWN); });
    var ring = order.slice(1);
    for (var r = 0; r < ring.length && order.length < NEAR; r += 1) {
      neighbours[ring[r]].forEach(function (node) { add(node, NEAR); });
    }
    return order;
  }

  function busiest() {
    var all = nodes.map(function (_, i) { return i; });
    all.sort(function (a, b) { return neighbours[b].length - neighbours[a].length || a - b; });
    return all;
  }

  // Fruchterman-Reingold in a fixed frame from a fixed start (a sunflower spiral), so the
  // same graph always looks the same; the frame keeps unconnected nodes from drifting off.
  var WIDTH = 1000, HEIGHT = 700, MARGIN = 30;
  function layout(shown) {
    var n = shown.length, index = {}, x = [], y = [];
    var k = Math.min(Math.sqrt((WIDTH * HEIGHT) / Math.max(n, 1)) * 0.75, 110);
    shown.forEach(function (node, i) {
      index[node] = i;
      var angle = i * 2.399963, radius = (Math.min(WIDTH, HEIGHT) / 2.4) * Math.sqrt((i + 0.5) / n);
      x.push(WIDTH / 2 + radius * Math.cos(angle));
      y.push(HEIGHT / 2 + radius * Math.sin(angle));
    });
    var links = [];
    shown.forEach(function (node, i) {
      neighbours[node].forEach(function (other) {
        var j = index[other];
        if (j !== undefined && i < j) links.push([i, j]);
      });
    });
    var iterations = n > 200 ? 200 : 300, temperature = WIDTH / 10;
    for (var step = 0; step < iterations; step += 1) {
      var dx = new Float64Array(n), dy = new Float64Array(n);
      for (var i = 0; i < n; i += 1) {
        for (var j = i + 1; j < n; j += 1) {
          var ex = x[i] - x[j], ey = y[i] - y[j];
          var d2 = ex * ex + ey * ey + 0.01, force = (k * k) / d2;
          dx[i] += ex * force; dy[i] += ey * force;
          dx[j] -= ex * force; dy[j] -= ey * force;
        }
      }
      links.forEach(function (link) {
        var a = link[0], b = link[1], ex = x[a] - x[b], ey = y[a] - y[b];
        var pull = Math.sqrt(ex * ex + ey * ey) / k;
        dx[a] -= ex * pull; dy[a] -= ey * pull;
        dx[b] += ex * pull; dy[b] += ey * pull;
      });
      for (var m = 0; m < n; m += 1) {
        dx[m] += (WIDTH / 2 - x[m]) * 0.05; dy[m] += (HEIGHT / 2 - y[m]) * 0.05;
        var length = Math.sqrt(dx[m] * dx[m] + dy[m] * dy[m]) + 0.01;
        var move = Math.min(length, temperature);
        x[m] = Math.max(MARGIN, Math.min(WIDTH - MARGIN, x[m] + (dx[m] / length) * move));
        y[m] = Math.max(MARGIN, Math.min(HEIGHT - MARGIN, y[m] + (dy[m] / length) * move));
      }
      temperature = Math.max(1, temperature * 0.98);
    }
    return { x: x, y: y, index: index };
  }

  function element(name, attributes) {
    var el = document.createElementNS(NS, name);
    Object.keys(attributes).forEach(function (key) { el.setAttribute(key, attributes[key]); });
    return el;
  }

  function short(text) {
    return text.length > 30 ? text.slice(0, 29) + "…" : text;
  }

  var view = { x: 0, y: 0, w: 1000, h: 700 };
  function applyView() {
    svg.setAttribute("viewBox", view.x + " " + view.y + " " + view.w + " " + view.h);
  }

  function radius(node, focus) {
    return node === focus ? 10 : 5 + Math.min(7, 1.5 * Math.sqrt(neighbours[node].length));
  }

  function draw(shown, focus) {
    var placed = layout(shown);
    while (svg.firstChild) svg.removeChild(svg.firstChild);
    var minX = Math.min.apply(null, placed.x) - 40, maxX = Math.max.apply(null, placed.x) + 200;
    var minY = Math.min.apply(null, placed.y) - 40, maxY = Math.max.apply(null, placed.y) + 40;
    view = { x: minX, y: minY, w: Math.max(maxX - minX, 300), h: Math.max(maxY - minY, 200) };
    applyView();
    var defs = element("defs", {});
    var marker = element("marker", {
      id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5",
      markerWidth: "6", markerHeight: "6", orient: "auto-start-reverse"
    });
    marker.appendChild(element("path", { d: "M 0 0 L 10 5 L 0 10 z", "class": "arrow" }));
    defs.appendChild(marker);
    svg.appendChild(defs);
    var edges = element("g", { "class": "edges" });
    shown.forEach(function (from, a) {
      outgoing[from].forEach(function (to) {
        var b = placed.index[to];
        if (b === undefined || a === b) return;
        var ex = placed.x[b] - placed.x[a], ey = placed.y[b] - placed.y[a];
        var length = Math.sqrt(ex * ex + ey * ey) || 1, cut = radius(to, focus) + 2;
        edges.appendChild(element("line", {
          "class": "edge", "marker-end": "url(#arrow)",
          x1: placed.x[a].toFixed(1), y1: placed.y[a].toFixed(1),
          x2: (placed.x[b] - (ex / length) * cut).toFixed(1),
          y2: (placed.y[b] - (ey / length) * cut).toFixed(1)
        }));
      });
    });
    svg.appendChild(edges);
    var layer = element("g", { "class": "nodes" });
    var labelAll = shown.length <= 80;
    shown.forEach(function (node, i) {
      var g = element("g", { "class": "node" + (node === focus ? " focus" : ""), tabindex: "0", role: "button" });
      g.setAttribute("aria-label", nodes[node][1] + " (" + nodes[node][0] + ")");
      var title = element("title", {});
      title.textContent = nodes[node][1] + "\n" + nodes[node][0];
      g.appendChild(title);
      var r = radius(node, focus);
      g.appendChild(element("circle", {
        cx: placed.x[i].toFixed(1), cy: placed.y[i].toFixed(1), r: r.toFixed(1), fill: colour(node)
      }));
      if (labelAll || node === focus || neighbours[node].length > 8) {
        var text = element("text", { x: (placed.x[i] + r + 4).toFixed(1), y: (placed.y[i] + 4).toFixed(1) });
        text.textContent = short(nodes[node][1]);
        g.appendChild(text);
      }
      g.addEventListener("click", function () { focusOn(node); });
      g.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); focusOn(node); }
      });
      layer.appendChild(g);
    });
    svg.appendChild(layer);
  }

  function describe(node) {
    while (panel.firstChild) panel.removeChild(panel.firstChild);
    if (node < 0) return;
    var h = document.createElement("h2");
    h.textContent = nodes[node][1];
    var id = document.createElement("p");
    var code = document.createElement("code");
    code.textContent = nodes[node][0];
    id.appendChild(code);
    var p = document.createElement("p");
    p.textContent = neighbours[node].length + " links. ";
    var a = document.createElement("a");
    a.href = root + nodes[node][3];
    a.textContent = "Open its page";
    p.appendChild(a);
    panel.appendChild(h);
    panel.appendChild(id);
    panel.appendChild(p);
  }

  function focusOn(node) {
    var shown = around(node);
    draw(shown, node);
    describe(node);
    status.textContent = "The neighbourhood of " + nodes[node][1] + ": " + shown.length + " of " + count + " nodes.";
    var url = new URL(window.location.href);
    url.searchParams.set("focus", nodes[node][0]);
    window.history.replaceState(null, "", url.toString());
  }

  function showAll() {
    var shown = count <= MAX_SHOWN ? nodes.map(function (_, i) { return i; }) : busiest().slice(0, MAX_SHOWN);
    shown.sort(function (a, b) { return a - b; });
    draw(shown, -1);
    describe(-1);
    status.textContent = count <= MAX_SHOWN
      ? "The whole graph: " + count + " nodes and " + data.edges.length + " links. Click a node to focus on it."
      : "The " + MAX_SHOWN + " most connected of " + count + " nodes. Search or click to focus on a record.";
    var url = new URL(window.location.href);
    url.searchParams.delete("focus");
    window.history.replaceState(null, "", url.toString());
  }

  function search() {
    while (matches.firstChild) matches.removeChild(matches.firstChild);
    var query = input.value.trim().toLowerCase();
    if (!query) return [];
    var found = [];
    for (var i = 0; i < count && found.length < 8; i += 1) {
      if (nodes[i][0].toLowerCase().indexOf(query) >= 0 || nodes[i][1].toLowerCase().indexOf(query) >= 0) found.push(i);
    }
    found.forEach(function (node) {
      var li = document.createElement("li");
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = nodes[node][1] + " — " + nodes[node][0];
      button.addEventListener("click", function () {
        input.value = nodes[node][0];
        while (matches.firstChild) matches.removeChild(matches.firstChild);
        focusOn(node);
      });
      li.appendChild(button);
      matches.appendChild(li);
    });
    return found;
  }

  input.addEventListener("input", search);
  input.addEventListener("keydown", function (event) {
    if (event.key !== "Enter") return;
    event.preventDefault();
    var found = search();
    if (found.length) {
      while (matches.firstChild) matches.removeChild(matches.firstChild);
      focusOn(found[0]);
    }
  });
  document.getElementById("graph-all").addEventListener("click", showAll);

  // Pan by dragging, zoom with the wheel around the pointer.
  var drag = null;
  svg.addEventListener("pointerdown", function (event) {
    if (event.target !== svg) return;
    drag = { x: event.clientX, y: event.clientY };
    svg.setPointerCapture(event.pointerId);
  });
  svg.addEventListener("pointermove", function (event) {
    if (!drag) return;
    var scale = view.w / svg.clientWidth;
    view.x -= (event.clientX - drag.x) * scale;
    view.y -= (event.clientY - drag.y) * scale;
    drag = { x: event.clientX, y: event.clientY };
    applyView();
  });
  svg.addEventListener("pointerup", function () { drag = null; });
  svg.addEventListener("wheel", function (event) {
    event.preventDefault();
    var box = svg.getBoundingClientRect();
    var factor = event.deltaY > 0 ? 1.15 : 1 / 1.15;
    var px = view.x + ((event.clientX - box.left) / box.width) * view.w;
    var py = view.y + ((event.clientY - box.top) / box.height) * view.h;
    view.w *= factor; view.h *= factor;
    view.x = px - (px - view.x) * factor;
    view.y = py - (py - view.y) * factor;
    applyView();
  }, { passive: false });

  var wanted = new URLSearchParams(window.location.search).get("focus");
  if (wanted && byId[wanted] !== undefined) {
    input.value = wanted;
    focusOn(byId[wanted]);
  } else if (count === 0) {
    status.textContent = "The corpus has no records yet.";
  } else {
    showAll();
  }
})();
