// studydb: the board editor.  Hand-written, no dependencies.  The board is 64
// buttons; the position lives in `men` (square name -> piece code like "wK")
// and is written to the FEN field after every change; typing a FEN redraws
// the board.  Pointer events give one path for mouse, pen and touch.
(function () {
  "use strict";
  var editor = document.getElementById("editor");
  if (!editor) {
    return;
  }
  var boardEl = document.getElementById("edit-board");
  var palette = document.getElementById("palette");
  var fenInput = document.getElementById("fen-input");
  var problem = document.getElementById("problem");
  var boardText = document.getElementById("board-text");
  var form = document.getElementById("editor-form");
  var pieceUrl = editor.dataset.pieces.replace("wK.svg", "");
  var FILES = "abcdefgh";
  var NAMES = { K: "king", Q: "queen", R: "rook", B: "bishop", N: "knight", P: "pawn" };
  var ORDER = "KQRBNP";
  var squares = {};
  boardEl.querySelectorAll("button.sq").forEach(function (el) {
    squares[el.dataset.square] = el;
  });
  var men = {};
  var turn = "w";
  var flipped = false;
  var tool = "move";
  var picked = null;

  // -- the position and its FEN ------------------------------------------------

  function readFen(text) {
    var fields = text.trim().split(/\s+/);
    var rows = (fields[0] || "").split("/");
    if (rows.length !== 8) {
      return null;
    }
    var found = {};
    for (var r = 0; r < 8; r += 1) {
      var file = 0;
      for (var i = 0; i < rows[r].length; i += 1) {
        var c = rows[r].charAt(i);
        if (c >= "1" && c <= "8") {
          file += Number(c);
        } else if ("KQRBNPkqrbnp".indexOf(c) >= 0 && file < 8) {
          found[FILES.charAt(file) + String(8 - r)] = (c === c.toUpperCase() ? "w" : "b") + c.toUpperCase();
          file += 1;
        } else {
          return null;
        }
      }
      if (file !== 8) {
        return null;
      }
    }
    var side = fields[1] === "b" ? "b" : "w";
    return { men: found, turn: side };
  }

  function writeFen() {
    var rows = [];
    for (var rank = 8; rank >= 1; rank -= 1) {
      var row = "";
      var empty = 0;
      for (var f = 0; f < 8; f += 1) {
        var code = men[FILES.charAt(f) + rank];
        if (!code) {
          empty += 1;
          continue;
        }
        if (empty) {
          row += empty;
          empty = 0;
        }
        row += code.charAt(0) === "w" ? code.charAt(1) : code.charAt(1).toLowerCase();
      }
      rows.push(row + (empty ? empty : ""));
    }
    return rows.join("/") + " " + turn + " - - 0 1";
  }

  // The pieces placed as a FENPattern: an empty square is "?" (any square), or each
  // run of empty squares is "*" (any number of squares), as the user chose.
  function writePattern(runs) {
    var rows = [];
    for (var rank = 8; rank >= 1; rank -= 1) {
      var row = "";
      for (var f = 0; f < 8; f += 1) {
        var code = men[FILES.charAt(f) + rank];
        if (!code) {
          if (!runs) {
            row += "?";
          } else if (row.charAt(row.length - 1) !== "*") {
            row += "*";
          }
          continue;
        }
        row += code.charAt(0) === "w" ? code.charAt(1) : code.charAt(1).toLowerCase();
      }
      rows.push(row);
    }
    return rows.join("/");
  }

  // What is wrong with the position for a search (an empty string if nothing).
  function check() {
    var kings = { w: 0, b: 0 };
    var count = { w: 0, b: 0 };
    var bad = "";
    Object.keys(men).forEach(function (square) {
      var code = men[square];
      count[code.charAt(0)] += 1;
      if (code.charAt(1) === "K") {
        kings[code.charAt(0)] += 1;
      }
      if (code.charAt(1) === "P" && (square.charAt(1) === "1" || square.charAt(1) === "8")) {
        bad = "a pawn stands on " + square + ": pawns cannot stand on the first or last rank";
      }
    });
    if (kings.w !== 1 || kings.b !== 1) {
      return "each side needs exactly one king (White has " + kings.w + ", Black " + kings.b + ")";
    }
    if (count.w > 16 || count.b > 16) {
      return "a side has more than 16 men";
    }
    return bad;
  }

  function describe() {
    var sides = { w: [], b: [] };
    Object.keys(men).forEach(function (square) {
      var code = men[square];
      sides[code.charAt(0)].push({ kind: ORDER.indexOf(code.charAt(1)), square: square });
    });
    function words(list) {
      list.sort(function (a, b) {
        return a.kind - b.kind || a.square.charAt(1) - b.square.charAt(1) ||
          FILES.indexOf(a.square.charAt(0)) - FILES.indexOf(b.square.charAt(0));
      });
      return list.length ? list.map(function (m) { return ORDER.charAt(m.kind) + m.square; }).join(", ") : "nothing";
    }
    return "White " + words(sides.w) + "; Black " + words(sides.b) + " (" + sides.w.length + "+" +
      sides.b.length + "); " + (turn === "w" ? "White" : "Black") + " to move; FEN " + writeFen();
  }

  function draw(fromInput) {
    Object.keys(squares).forEach(function (name) {
      var el = squares[name];
      var code = men[name];
      el.style.backgroundImage = code ? "url(" + pieceUrl + code + ".svg)" : "";
      el.dataset.piece = code || "";
      var label = name + (code ? ", " + (code.charAt(0) === "w" ? "white " : "black ") + NAMES[code.charAt(1)] : ", empty");
      el.setAttribute("aria-label", label);
      el.classList.toggle("picked", picked === name);
    });
    if (!fromInput) {
      fenInput.value = writeFen();
    }
    document.getElementById("turn-" + turn).checked = true;
    problem.textContent = check();
    boardText.textContent = describe();
  }

  function layOut() {
    // Squares in reading order for the current orientation; coordinates on the edges.
    var names = [];
    for (var r = 0; r < 8; r += 1) {
      for (var f = 0; f < 8; f += 1) {
        var file = flipped ? 7 - f : f;
        var rank = flipped ? r + 1 : 8 - r;
        names.push(FILES.charAt(file) + rank);
      }
    }
    names.forEach(function (name, index) {
      var el = squares[name];
      boardEl.appendChild(el);
      el.textContent = "";
      var row = Math.floor(index / 8);
      var col = index % 8;
      if (row === 7) {
        var fileMark = document.createElement("span");
        fileMark.className = "coord file";
        fileMark.textContent = name.charAt(0);
        fileMark.setAttribute("aria-hidden", "true");
        el.appendChild(fileMark);
      }
      if (col === 0) {
        var rankMark = document.createElement("span");
        rankMark.className = "coord rank";
        rankMark.textContent = name.charAt(1);
        rankMark.setAttribute("aria-hidden", "true");
        el.appendChild(rankMark);
      }
    });
  }

  function load(fen) {
    var position = readFen(fen);
    if (!position) {
      return false;
    }
    men = position.men;
    turn = position.turn;
    picked = null;
    return true;
  }

  // -- editing ---------------------------------------------------------------

  function place(square, code) {
    if (code) {
      men[square] = code;
    } else {
      delete men[square];
    }
  }

  function choose(name) {
    tool = name;
    picked = null;
    palette.querySelectorAll("button").forEach(function (el) {
      el.setAttribute("aria-pressed", String(el.dataset.piece === name));
    });
    draw();
  }

  function clickSquare(square) {
    if (tool === "erase") {
      place(square, null);
    } else if (tool !== "move") {
      place(square, men[square] === tool ? null : tool);
    } else if (picked === null) {
      if (men[square]) {
        picked = square;
      }
    } else {
      if (picked !== square) {
        place(square, men[picked]);
        place(picked, null);
      }
      picked = null;
    }
    draw();
  }

  palette.querySelectorAll("button").forEach(function (el) {
    if (el.dataset.piece.length === 2) {
      el.style.backgroundImage = "url(" + pieceUrl + el.dataset.piece + ".svg)";
    }
  });

  // -- pointer input: a click, or a drag with a floating piece -------------------

  var drag = null;
  var lastDrag = 0;
  var DRAG_DISTANCE = 6;

  function squareAt(x, y) {
    var el = document.elementFromPoint(x, y);
    var sq = el && el.closest ? el.closest("button.sq") : null;
    return sq && boardEl.contains(sq) ? sq.dataset.square : null;
  }

  function startDrag(event, code, from) {
    drag = { code: code, from: from, x: event.clientX, y: event.clientY, moving: false, ghost: null, pointer: event.pointerId };
  }

  function moveGhost(event) {
    if (!drag.ghost) {
      var size = boardEl.getBoundingClientRect().width / 8;
      drag.ghost = document.createElement("div");
      drag.ghost.className = "drag-ghost";
      drag.ghost.style.width = size + "px";
      drag.ghost.style.height = size + "px";
      drag.ghost.style.backgroundImage = "url(" + pieceUrl + drag.code + ".svg)";
      document.body.appendChild(drag.ghost);
      drag.size = size;
      if (drag.from) {
        squares[drag.from].style.backgroundImage = "";
      }
    }
    drag.ghost.style.left = event.clientX - drag.size / 2 + "px";
    drag.ghost.style.top = event.clientY - drag.size / 2 + "px";
    boardEl.querySelectorAll(".over").forEach(function (el) { el.classList.remove("over"); });
    var over = squareAt(event.clientX, event.clientY);
    if (over) {
      squares[over].classList.add("over");
    }
  }

  boardEl.addEventListener("pointerdown", function (event) {
    var sq = event.target.closest("button.sq");
    if (!sq || event.button > 0) {
      return;
    }
    var code = men[sq.dataset.square];
    if (code && (tool === "move" || tool === code)) {
      startDrag(event, code, sq.dataset.square);
    }
  });
  palette.addEventListener("pointerdown", function (event) {
    var el = event.target.closest("button");
    if (el && el.dataset.piece.length === 2 && event.button <= 0) {
      startDrag(event, el.dataset.piece, null);
    }
  });
  document.addEventListener("pointermove", function (event) {
    if (!drag || event.pointerId !== drag.pointer) {
      return;
    }
    if (!drag.moving && Math.abs(event.clientX - drag.x) + Math.abs(event.clientY - drag.y) < DRAG_DISTANCE) {
      return;
    }
    drag.moving = true;
    event.preventDefault();
    moveGhost(event);
  });
  function endDrag(event) {
    if (!drag || event.pointerId !== drag.pointer) {
      return;
    }
    var was = drag;
    drag = null;
    if (was.ghost) {
      was.ghost.remove();
    }
    boardEl.querySelectorAll(".over").forEach(function (el) { el.classList.remove("over"); });
    if (!was.moving) {
      return; // a click: the click handlers do the work
    }
    lastDrag = Date.now();
    var target = event.type === "pointerup" ? squareAt(event.clientX, event.clientY) : was.from;
    if (was.from) {
      place(was.from, null);
    }
    if (target) {
      place(target, was.code);
    }
    picked = null;
    draw();
  }
  document.addEventListener("pointerup", endDrag);
  document.addEventListener("pointercancel", endDrag);

  boardEl.addEventListener("click", function (event) {
    var sq = event.target.closest("button.sq");
    if (sq && Date.now() - lastDrag > 300) {
      clickSquare(sq.dataset.square);
    }
  });
  palette.addEventListener("click", function (event) {
    var el = event.target.closest("button");
    if (el && Date.now() - lastDrag > 300) {
      choose(el.dataset.piece === tool && tool !== "move" ? "move" : el.dataset.piece);
    }
  });

  // Arrow keys move between squares (one tab stop for the board).
  boardEl.addEventListener("keydown", function (event) {
    var sq = event.target.closest("button.sq");
    var steps = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };
    if (!sq || !steps[event.key]) {
      return;
    }
    event.preventDefault();
    var sign = flipped ? -1 : 1;
    var file = FILES.indexOf(sq.dataset.square.charAt(0)) + sign * steps[event.key][0];
    var rank = Number(sq.dataset.square.charAt(1)) + sign * steps[event.key][1];
    if (file < 0 || file > 7 || rank < 1 || rank > 8) {
      return;
    }
    var next = squares[FILES.charAt(file) + rank];
    sq.setAttribute("tabindex", "-1");
    next.setAttribute("tabindex", "0");
    next.focus();
  });

  // -- the side panel ---------------------------------------------------------

  document.getElementById("turn-w").addEventListener("change", function () { turn = "w"; draw(); });
  document.getElementById("turn-b").addEventListener("change", function () { turn = "b"; draw(); });
  document.getElementById("clear").addEventListener("click", function () {
    men = {};
    picked = null;
    draw();
  });
  document.getElementById("initial").addEventListener("click", function () {
    load("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1");
    draw();
  });
  var reset = document.getElementById("reset");
  if (reset) {
    reset.addEventListener("click", function () {
      load(fenInput.dataset.start);
      draw();
    });
  }
  document.getElementById("flip-board").addEventListener("click", function () {
    flipped = !flipped;
    layOut();
    draw();
  });
  fenInput.addEventListener("input", function () {
    if (load(fenInput.value)) {
      draw(true);
    } else {
      problem.textContent = "not a FEN yet: 8 ranks of pieces (KQRBNP, kqrbnp) and digits, then w or b";
    }
  });
  form.addEventListener("submit", function (event) {
    var trouble = readFen(fenInput.value) ? check() : "the FEN is not complete";
    if (trouble) {
      event.preventDefault();
      problem.textContent = "Cannot search: " + trouble;
      return;
    }
  });

  var patternForm = document.getElementById("pattern-form");
  var patternText = document.getElementById("pattern-text");
  function showPattern() {
    patternText.textContent = writePattern(document.getElementById("empty-run").checked);
  }
  ["empty-any", "empty-run"].forEach(function (id) {
    document.getElementById(id).addEventListener("change", showPattern);
  });
  boardEl.addEventListener("click", showPattern);
  document.addEventListener("pointerup", showPattern);
  fenInput.addEventListener("input", showPattern);
  patternForm.addEventListener("submit", function () {
    document.getElementById("pattern-input").value = writePattern(
      document.getElementById("empty-run").checked
    );
    var side = document.getElementById("pattern-turn");
    side.disabled = !document.getElementById("pattern-side").checked;
    side.value = turn === "w" ? "white" : "black";
  });

  load(fenInput.value);
  layOut();
  draw();
  showPattern();
}());
