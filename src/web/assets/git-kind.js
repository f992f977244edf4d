// The Git integration form shows only the boxes that apply to the chosen kind (GitHub App, GitHub token, GitLab):
// the others are hidden and disabled, so nothing typed into them is sent. Without JavaScript every box shows and
// the server refuses a value in a box that does not apply, at that box (src/web/git-integration-kind.ts).
(function () {
  var form = document.querySelector('form[data-git-kind]');
  if (!form) return;
  function current() {
    var select = form.querySelector('select[name="kind"]');
    if (select) return select.value;
    var checked = form.querySelector('input[name="auth"]:checked');
    return checked ? 'github-' + checked.value : form.getAttribute('data-git-kind');
  }
  function apply() {
    var kind = current();
    Array.prototype.forEach.call(form.querySelectorAll('[data-kinds]'), function (box) {
      var applies = box.getAttribute('data-kinds').split(' ').indexOf(kind) >= 0;
      box.hidden = !applies;
      Array.prototype.forEach.call(box.querySelectorAll('input, textarea, select'), function (input) {
        input.disabled = !applies;
      });
    });
  }
  form.addEventListener('change', apply);
  apply();
})();
