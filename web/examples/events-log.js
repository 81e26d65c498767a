// events-log.js: lists the events of the resnorm embeds on this page (events.html). A classic
// script with no dependencies. It accepts messages only from the page's own iframe[data-resnorm]
// elements and only of version 1, and writes them as text (never as markup).
(function () {
  'use strict';
  var log = document.getElementById('event-log');
  var scoreLine = document.getElementById('event-score');

  function fromOurFrame(event) {
    var frames = document.querySelectorAll('iframe[data-resnorm]');
    for (var i = 0; i < frames.length; i++) if (frames[i].contentWindow === event.source) return true;
    return false;
  }

  function describe(m) {
    switch (m.type) {
      case 'ready':
        return m.items ? 'questions ' + m.items.join(', ') : 'depth ' + m.config.depth;
      case 'answer':
        return (
          m.item +
          ' (question ' +
          (m.index + 1) +
          '): ' +
          (m.selfGraded
            ? 'the reader says "' +
              (m.correct ? 'got it' : 'missed it') +
              '"' +
              (m.counts ? '' : ' (not counted)') +
              (m.response ? ', wrote: ' + m.response : '')
            : (m.correct ? 'right' : 'wrong') + ', answered ' + m.response)
        );
      case 'score':
        return m.max > 0 ? m.raw + ' of ' + m.max + ' correct (' + Math.round(100 * m.scaled) + '%)' : 'nothing scored';
      case 'complete':
        return (
          describe({ type: 'score', raw: m.raw, max: m.max, scaled: m.scaled }) +
          (m.passed === true ? ', passed' : m.passed === false ? ', not passed' : '') +
          (m.passed === null ? '' : ' (pass mark ' + m.passMark + '%)')
        );
      default:
        return '';
    }
  }

  window.addEventListener('message', function (event) {
    var m = event.data;
    if (!m || m.source !== 'resnorm' || m.version !== 1 || !fromOurFrame(event)) return;
    var li = document.createElement('li');
    li.textContent = m.embed + ' ' + m.type + ': ' + describe(m);
    log.append(li);
    if (m.type === 'score') scoreLine.textContent = 'Score so far: ' + describe(m) + '.';
    if (m.type === 'complete') scoreLine.textContent = 'Finished: ' + describe(m) + '.';
  });
})();
