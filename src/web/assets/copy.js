// "Copy" buttons for read-only boxes (the badge URL and its Markdown). Without JavaScript the buttons stay hidden
// and the boxes are selected and copied by hand; the clipboard needs a secure context or a local address.
(function () {
  var buttons = document.querySelectorAll('button[data-copy]');
  Array.prototype.forEach.call(buttons, function (button) {
    var box = document.getElementById(button.dataset.copy);
    var status = document.getElementById(button.dataset.copy + '-copied');
    if (!box || !navigator.clipboard) return;
    button.hidden = false;
    button.addEventListener('click', function () {
      navigator.clipboard.writeText(box.value).then(
        function () {
          if (status) status.textContent = 'Copied.';
        },
        function () {
          box.select();
          if (status) status.textContent = 'Select the text and copy it (Ctrl+C).';
        },
      );
    });
  });
})();
