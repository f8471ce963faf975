// studydb: step through a study's solution on its page.  Hand-written, no
// dependencies.  Each move of the solution is a button carrying the position
// after it (data-fen), the move (data-uci), the move it follows (data-parent)
// and the next move of its line (data-next); the diagram is an image that the
// server draws for a position, so showing a move only changes its address.
(function () {
  "use strict";
  var study = document.getElementById("study");
  if (!study) {
    return;
  }
  var board = document.getElementById("board");
  var moves = {};
  study.querySelectorAll("button.move").forEach(function (el) {
    moves[el.dataset.node] = el;
  });
  var current = study.querySelector("button.move.current") || moves["0"];
  var flipped = false;

  function draw() {
    var params = new URLSearchParams();
    params.set("fen", current.dataset.fen);
    params.set("size", study.dataset.size);
    if (current.dataset.uci) {
      params.set("lastmove", current.dataset.uci);
    }
    if (flipped) {
      params.set("flip", "1");
    }
    board.src = study.dataset.diagram + "?" + params.toString();
    board.dataset.fen = current.dataset.fen;
  }

  function show(el) {
    if (!el || el === current) {
      return;
    }
    current.classList.remove("current");
    current.removeAttribute("aria-current");
    current = el;
    current.classList.add("current");
    current.setAttribute("aria-current", "step");
    draw();
  }

  function next() {
    show(moves[current.dataset.next]);
  }

  function previous() {
    show(moves[current.dataset.parent || ""]);
  }

  function last() {
    while (moves[current.dataset.next]) {
      next();
    }
  }

  function flip() {
    flipped = !flipped;
    study.classList.toggle("flipped", flipped);
    draw();
  }

  study.addEventListener("click", function (event) {
    var el = event.target.closest("button.move");
    if (el) {
      show(el);
    }
  });
  document.getElementById("next").addEventListener("click", next);
  document.getElementById("prev").addEventListener("click", previous);
  document.getElementById("first").addEventListener("click", function () {
    show(moves["0"]);
  });
  document.getElementById("flip").addEventListener("click", flip);
  document.addEventListener("keydown", function (event) {
    var tag = event.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || event.altKey || event.ctrlKey || event.metaKey) {
      return;
    }
    var actions = {
      ArrowRight: next,
      ArrowLeft: previous,
      Home: function () { show(moves["0"]); },
      End: last,
      f: flip
    };
    if (actions[event.key]) {
      event.preventDefault();
      actions[event.key]();
    }
  });
  board.dataset.fen = current.dataset.fen;
}());
