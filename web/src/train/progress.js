// The run's progress: a bar, the steps done, the speed in tokens a second
// and the time left, from session.js's snapshot().progress.
//
//   const p = createProgress(box);
//   p.update(progress, state);
import { el, setAttr, setText } from '../shared/dom.js';

/** A time left as words: "under a second", "12 s", "3 min 05 s", "2 h 10 min". */
export function durationText(seconds) {
  if (!Number.isFinite(seconds)) return 'unknown';
  if (seconds < 1) return 'under a second';
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/**
 * The progress line's time left while a run trains: "· about 12 s left" once every run has a
 * speed to go by, "· estimating the time left" before (a run that has not stepped yet, whose time
 * left is not known); '' when not training.
 */
export function timeLeftText(progress, runState) {
  if (runState !== 'running' && runState !== 'pausing') return '';
  if (!(progress.tokensPerSecond > 0) || !Number.isFinite(progress.secondsLeft))
    return '\u00b7 estimating the time left';
  return `\u00b7 about ${durationText(progress.secondsLeft)} left`;
}

const WHOLE = new Intl.NumberFormat('en');
const whole = (v) => WHOLE.format(Math.round(v));

/** The session's states in words (the progress line and the page's status line). */
export const STATE_WORDS = {
  idle: 'not started',
  starting: 'making the models\u2026',
  running: 'training',
  pausing: 'pausing after the steps under way\u2026',
  paused: 'paused',
  stepping: 'one logged step\u2026',
  done: 'done',
  error: 'not started: see the message',
};

export function createProgress(box) {
  const bar = el('progress', { class: 'run-bar-progress', max: 1, value: 0, 'aria-label': 'Training progress' });
  const steps = el('span', { class: 'run-steps' });
  const speed = el('span', { class: 'run-speed' });
  const left = el('span', { class: 'run-left' });
  const state = el('span', { class: 'run-state' });
  box.append(bar, el('p', { class: 'run-stats' }, state, ' ', steps, ' ', speed, ' ', left));

  return {
    update(p, runState) {
      // written only where they change: a frame that rewrites nothing lays nothing out
      const max = Math.max(1, p.total);
      if (bar.max !== max) bar.max = max;
      if (bar.value !== p.done) bar.value = p.done;
      setAttr(bar, 'aria-valuetext', `${whole(p.done)} of ${whole(p.total)} steps`);
      setText(state, STATE_WORDS[runState] ?? runState);
      setText(steps, p.total ? `\u00b7 ${whole(p.done)} of ${whole(p.total)} steps` : '');
      setText(speed, p.tokensPerSecond > 0 ? `\u00b7 ${whole(p.tokensPerSecond)} tokens/s` : '');
      setText(left, timeLeftText(p, runState));
    },
  };
}
