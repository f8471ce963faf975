// studydb: the search form.  Hand-written, no dependencies.  Adds inputs for
// more values of a filter, fills the material field from the piece picker,
// and leaves empty fields and defaults out of the address.
(function () {
  "use strict";
  var form = document.getElementById("search-form");
  if (!form) {
    return;
  }
  var ORDER = "QRBNP";

  // "+ another composer": a new empty input under the filter's others.
  form.querySelectorAll(".field-many").forEach(function (field) {
    var button = field.querySelector("button.add-value");
    if (!button) {
      return;
    }
    button.hidden = false;
    button.addEventListener("click", function () {
      var values = field.querySelector(".values");
      var input = document.createElement("input");
      input.type = "text";
      input.name = field.dataset.name;
      input.setAttribute("aria-label", field.dataset.label + " " + (values.children.length + 1));
      values.appendChild(input);
      input.focus();
    });
  });

  // The piece picker: counts per side (kings implied) written as a signature.
  var picker = document.getElementById("picker");
  var material = document.getElementById("f-material");
  if (picker && material) {
    picker.hidden = false;
    var inputs = picker.querySelectorAll("input[type=number]");
    var readField = function () {
      var match = /^\s*K?([QRBNP]*)\s*v\s*K?([QRBNP]*)\s*$/i.exec(material.value);
      if (!match) {
        return;
      }
      var sides = { w: match[1].toUpperCase(), b: match[2].toUpperCase() };
      inputs.forEach(function (input) {
        input.value = sides[input.dataset.side].split(input.dataset.piece).length - 1;
      });
    };
    var writeField = function () {
      var sides = { w: "K", b: "K" };
      var any = false;
      ORDER.split("").forEach(function (piece) {
        inputs.forEach(function (input) {
          var count = Math.max(0, Math.min(8, Math.floor(Number(input.value) || 0)));
          if (input.dataset.piece === piece && count) {
            sides[input.dataset.side] += new Array(count + 1).join(piece);
            any = true;
          }
        });
      });
      material.value = any ? sides.w + "v" + sides.b : "";
    };
    picker.addEventListener("toggle", function () {
      if (picker.open) {
        readField();
      }
    });
    inputs.forEach(function (input) {
      input.addEventListener("input", writeField);
    });
  }

  // Only what was filled goes into the address.
  form.addEventListener("submit", function () {
    form.querySelectorAll("input[type=text], select").forEach(function (el) {
      if (!el.value.trim() || (el.name === "sort" && el.value === "gbr")) {
        el.disabled = true;
      }
    });
    // Re-enable on the way back (the page may be restored from the cache).
    setTimeout(function () {
      form.querySelectorAll(":disabled").forEach(function (el) {
        el.disabled = false;
      });
    }, 0);
  });
}());
