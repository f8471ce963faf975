// studydb: step through a study's solution on its page.  Hand-written, no
// dependencies.  Each move of the solution is a button carrying the position
// after it (data-fen), the move (data-uci), the move it follows (data-parent),
// the next move of its line (data-next) and its label (data-label); the
// diagram is an image the server draws, so showing a move changes its address.
// The address bar follows the move (?node=N), so a position can be shared.
(function () {
  "use strict";
  var study = document.getElementById("study");
  if (!study) {
    return;
  }
  var board = document.getElementById("board");
  var solution = document.getElementById("solution");
  var now = document.getElementById("now");
  var fenBox = document.getElementById("fen");
  var moves = {};
  var order = [];
  solution.querySelectorAll("button.move").forEach(function (el) {
    moves[el.dataset.node] = el;
    order.push(el);
  });
  var current = solution.querySelector("button.move.current") || moves["0"];
  var flipped = false;
  var PIECES = "KQRBNP";

  // The men of a position in words, as the server writes the board's alt text.
  function describe(fen) {
    var fields = fen.split(" ");
    var men = { w: [], b: [] };
    fields[0].split("/").forEach(function (rank, index) {
      var file = 0;
      for (var i = 0; i < rank.length; i += 1) {
        var c = rank.charAt(i);
        if (c >= "1" && c <= "8") {
          file += Number(c);
        } else {
          var side = c === c.toUpperCase() ? "w" : "b";
          var square = "abcdefgh".charAt(file) + String(8 - index);
          men[side].push({ kind: PIECES.indexOf(c.toUpperCase()), file: file, rank: 8 - index, text: c.toUpperCase() + square });
          file += 1;
        }
      }
    });
    function words(list) {
      list.sort(function (a, b) {
        return a.kind - b.kind || a.rank - b.rank || a.file - b.file;
      });
      return list.length ? list.map(function (m) { return m.text; }).join(", ") : "nothing";
    }
    var turn = fields[1] === "b" ? "Black" : "White";
    return "White " + words(men.w) + "; Black " + words(men.b) + " (" + men.w.length + "+" +
      men.b.length + "); " + turn + " to move; FEN " + fen;
  }

  function diagramParams(size) {
    var params = new URLSearchParams();
    params.set("fen", current.dataset.fen);
    params.set("size", size || study.dataset.size);
    if (current.dataset.uci) {
      params.set("lastmove", current.dataset.uci);
    }
    if (flipped) {
      params.set("flip", "1");
    }
    return params.toString();
  }

  function setLink(id, href) {
    var el = document.getElementById(id);
    if (el) {
      el.href = href;
    }
  }

  function draw() {
    var fen = current.dataset.fen;
    var diagram = study.dataset.diagram + "?" + diagramParams();
    board.src = diagram;
    board.dataset.fen = fen;
    board.alt = describe(fen);
    fenBox.value = fen;
    setLink("search-position", study.dataset.search + "?" + new URLSearchParams({ position: fen }).toString());
    setLink("edit-position", study.dataset.editor + "?" + new URLSearchParams({ fen: fen }).toString());
    setLink("download-svg", diagram);
    setLink("download-png", diagram);
  }

  function show(el, options) {
    if (!el) {
      return;
    }
    options = options || {};
    if (el !== current) {
      current.classList.remove("current");
      current.removeAttribute("aria-current");
      current.setAttribute("tabindex", "-1");
      current = el;
      current.classList.add("current");
      current.setAttribute("aria-current", "step");
      current.removeAttribute("tabindex");
      draw();
      now.textContent = current.dataset.node === "0" ? "Start position" : "After " + current.dataset.label;
      var node = current.dataset.node;
      history.replaceState(null, "", node === "0" ? location.pathname : location.pathname + "?node=" + node);
    }
    if (options.focus) {
      current.focus({ preventScroll: true });
    }
    current.scrollIntoView({ block: "nearest", inline: "nearest" });
    keepBoardInView();
  }

  // The board sticks beside (or above) the moves, but at the end of a long
  // solution the page below may push it up: bring it back (the move stays
  // visible, since the board's column fits the screen).
  function keepBoardInView() {
    var box = board.getBoundingClientRect();
    if (box.top < 0) {
      window.scrollBy(0, box.top - 8);
    } else if (box.bottom > window.innerHeight && box.height < window.innerHeight) {
      window.scrollBy(0, box.bottom - window.innerHeight + 8);
    }
  }

  function next() {
    return moves[current.dataset.next];
  }

  function previous() {
    return moves[current.dataset.parent || "0"] || moves["0"];
  }

  function last() {
    var el = current;
    while (moves[el.dataset.next]) {
      el = moves[el.dataset.next];
    }
    return el;
  }

  function step(by) {
    return order[order.indexOf(current) + by];
  }

  function flip() {
    flipped = !flipped;
    study.classList.toggle("flipped", flipped);
    draw();
  }

  solution.addEventListener("click", function (event) {
    var el = event.target.closest("button.move");
    if (el) {
      show(el);
    }
  });
  var buttons = {
    first: function () { return moves["0"]; },
    prev: previous,
    next: next,
    last: last
  };
  Object.keys(buttons).forEach(function (id) {
    document.getElementById(id).addEventListener("click", function () {
      show(buttons[id]());
    });
  });
  document.getElementById("flip").addEventListener("click", flip);
  document.querySelectorAll("a.move-link").forEach(function (link) {
    link.addEventListener("click", function (event) {
      event.preventDefault();
      show(moves[link.dataset.node], { focus: true });
    });
  });
  document.addEventListener("keydown", function (event) {
    var tag = event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    var keys = {
      ArrowRight: next,
      ArrowLeft: previous,
      ArrowDown: function () { return step(1); },
      ArrowUp: function () { return step(-1); },
      Home: function () { return moves["0"]; },
      End: last
    };
    if (keys[event.key]) {
      event.preventDefault();
      show(keys[event.key](), { focus: true });
    } else if (event.key === "f") {
      event.preventDefault();
      flip();
    }
  });

  var copy = document.getElementById("copy-fen");
  copy.addEventListener("click", function () {
    function done(text) {
      copy.textContent = text;
      setTimeout(function () { copy.textContent = "copy FEN"; }, 1500);
    }
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(fenBox.value).then(function () { done("copied"); }, function () {
        fenBox.select();
        done("select and copy");
      });
    } else {
      fenBox.select();
      done(document.execCommand("copy") ? "copied" : "select and copy");
    }
  });

  // PNG: the server's SVG drawn on a canvas in the browser (no network, no plug-in).
  var png = document.getElementById("download-png");
  png.hidden = false;
  png.addEventListener("click", function (event) {
    event.preventDefault();
    var size = Number(study.dataset.size);
    var image = new Image();
    image.onload = function () {
      var canvas = document.createElement("canvas");
      canvas.width = size;
      canvas.height = size;
      canvas.getContext("2d").drawImage(image, 0, 0, size, size);
      canvas.toBlob(function (blob) {
        var link = document.createElement("a");
        link.href = URL.createObjectURL(blob);
        link.download = png.getAttribute("download");
        document.body.appendChild(link);
        link.click();
        link.remove();
        setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
      }, "image/png");
    };
    image.src = study.dataset.diagram + "?" + diagramParams(size);
  });

  board.dataset.fen = current.dataset.fen;
  if (current !== moves["0"]) {
    current.scrollIntoView({ block: "nearest" });
  }
}());
