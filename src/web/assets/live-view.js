// The live view: frames and steps pushed by the server (text/event-stream) into the page. Text is set as text,
// never as markup: step descriptions are the model's words.
(function () {
  var root = document.getElementById('live');
  if (!root || !root.dataset.events) return;
  var img = document.getElementById('live-frame');
  var where = document.getElementById('live-url');
  var list = document.getElementById('live-steps');
  var status = document.getElementById('live-status');
  var stop = document.getElementById('live-stop');
  var events = new EventSource(root.dataset.events);

  events.addEventListener('frame', function (e) {
    var frame = JSON.parse(e.data);
    img.src = 'data:image/jpeg;base64,' + frame.jpeg;
    img.hidden = false;
    img.dataset.seq = String(frame.seq);
    where.textContent = frame.url || '';
  });
  events.addEventListener('status', function (e) {
    status.textContent = e.data;
  });
  events.addEventListener('steps', function (e) {
    var steps = JSON.parse(e.data);
    var items = steps.map(function (s) {
      var li = document.createElement('li');
      li.textContent = (s.ok ? 'Step ' + s.step + ': ' : 'Tried and failed: ') + s.action + ' — ' + s.description;
      if (!s.ok) li.className = 'muted';
      return li;
    });
    list.replaceChildren.apply(list, items);
    document.getElementById('live-steps-empty').hidden = steps.length > 0;
  });
  events.addEventListener('end', function (e) {
    events.close();
    var end = JSON.parse(e.data);
    status.textContent = end.message + ' ';
    var link = document.createElement('a');
    link.href = end.result;
    link.textContent = 'See the result';
    status.appendChild(link);
    if (stop) stop.hidden = true;
  });
})();
