// Injected by the HTML tests into a copy of the report, after the page's script: it
// acts as a user would, through events on the page's own elements (drags, wheels,
// clicks), and writes into <pre id="driver"> (JSON) what the page showed after each
// step, for htmltool.py to check against the CSV files. Ends zoomed in far enough
// that the bars have names: the view of the test's screenshot.
(() => {
  const steps = [];
  const area = document.getElementById('timeline-area');
  const axis = () => document.querySelector('#timeline-axis svg');
  const chart = () => document.querySelector('#timeline svg');
  // the client point at a fraction of an element's width, a few pixels down
  const at = (el, fx) => {
    const r = el.getBoundingClientRect();
    return {clientX: r.left + fx * r.width, clientY: r.top + 5};
  };
  const mouse = (target, type, p) => target.dispatchEvent(new MouseEvent(type,
    Object.assign({bubbles: true, cancelable: true, button: 0, view: window}, p)));
  const drag = (fa, fb) => {
    mouse(chart(), 'mousedown', at(chart(), fa));
    mouse(window, 'mousemove', at(chart(), (fa + fb) / 2));
    mouse(window, 'mouseup', at(chart(), fb));
  };
  const wheel = (el, fx, delta, keys) => el.dispatchEvent(new WheelEvent('wheel',
    Object.assign({bubbles: true, cancelable: true, deltaY: delta, deltaMode: 0}, at(el, fx), keys || {})));
  const timeline = name => steps.push({step: name, t0: +area.dataset.t0, t1: +area.dataset.t1,
    range: document.getElementById('timeline-range').textContent,
    bars: [...document.querySelectorAll('#timeline rect.proc-bar title')].map(t => t.textContent),
    labels: document.querySelectorAll('#timeline svg text').length});
  const table = name => {
    const th = document.querySelector('#syscalls th[aria-sort]');
    steps.push({step: name, sorted_by: th ? th.dataset.key : null, order: th ? th.getAttribute('aria-sort') : null,
      rows: [...document.querySelectorAll('#syscalls tr.syscall-stat')].map(tr =>
        [...tr.children].map(td => td.textContent))});
  };
  const sortBy = key => document.querySelector('#syscalls th[data-key="' + key + '"]').click();

  timeline('whole');
  drag(0.4, 0.6);
  timeline('dragged 40%-60%');
  wheel(axis(), 0.5, -300);
  timeline('wheel in on the axis');
  const scrolled = wheel(chart(), 0.5, -300);
  timeline('wheel on the bars');
  steps[steps.length - 1].default_allowed = scrolled;
  wheel(chart(), 0.5, -300, {ctrlKey: true});
  timeline('ctrl+wheel in on the bars');
  wheel(chart(), 0.5, 200, {shiftKey: true});
  timeline('shift+wheel');
  wheel(axis(), 0.5, 5000);
  timeline('wheel out on the axis');
  drag(0.4, 0.6);
  timeline('dragged 40%-60% again');
  document.getElementById('timeline-reset').click();
  timeline('reset');

  table('default order');
  for (const key of ['name', 'name', 'calls', 'calls', 'errors', 'time', 'share', 'abi'])
    sortBy(key), table('sorted by ' + key);

  // zoom in at the middle of the run until the bars have room for names
  drag(0.45, 0.55);
  for (let i = 0; i < 40 && document.querySelectorAll('#timeline rect.proc-bar').length > 30; i++)
    wheel(axis(), 0.5, -300);
  timeline('shot');
  const pre = document.createElement('pre');
  pre.id = 'driver';
  pre.hidden = true;  // out of the screenshot's way
  pre.textContent = JSON.stringify(steps);
  document.body.appendChild(pre);
})();
