// The papers page's claim sections, written at build time by web/build/figures-plugin.js in place of
// <!-- papers: sections --> in papers.html, and their entries in its table of contents in place of
// <!-- papers: toc -->, from each claim's `prose` (web/src/claims/papers/<id>.js) in the page's order:
// the claim's number and kicker, its title, the claim, the paper and the setting, then the places the
// page fills (the controls' form, the figures' slot that ./figures.js fills, the result). Pure: strings.
import { CLAIMS } from '../claims/papers/index.js';

/** A paragraph of the section's text: its class, its label and the claim's prose after it. */
const paragraph = (cls, label, html) => `<p class="${cls}"><span class="label">${label}.</span> ${html.trim()}</p>`;

/** The section of `claim`, the `n`th of the page. */
export function sectionHtml(claim, n) {
  const { id, prose } = claim;
  return `<section class="paper" id="p-${id}" data-panel="${id}" aria-labelledby="p-${id}-title">
  <p class="paper-kicker">${n} · ${prose.kicker ?? claim.citation}</p>
  <h2 id="p-${id}-title" class="paper-title">${prose.title.trim()}</h2>
  <div class="paper-grid">
    <div class="paper-text">
      ${paragraph('claim', 'Claim', prose.claim)}
      ${paragraph('cite', 'Paper', prose.paper)}
      ${paragraph('setting', 'Setting', prose.setting)}
      <form class="paper-controls" aria-label="Settings of reproduction ${n}" data-controls="${id}"></form>
    </div>
    <div class="paper-figures" data-figures="${id}"></div>
  </div>
  <div class="paper-result" data-result="${id}"></div>
</section>`;
}

/** Every claim's section, in the page's order. */
export const sectionsHtml = () => CLAIMS.map((c, i) => sectionHtml(c, i + 1)).join('\n');

/** The table of contents' entries, one link to each claim's section. */
export const tocHtml = () => CLAIMS.map((c) => `<li><a href="#p-${c.id}">${c.prose.toc}</a></li>`).join('\n');
