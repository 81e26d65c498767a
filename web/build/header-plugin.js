// What every page has, written once. `<!-- site-head -->` in a page's <head>
// becomes the tags every page starts its head with (charset, viewport, both
// colour schemes, the icon); the page adds its title, description and
// script. `<!-- site-header: PAGE -->` becomes the site header (brand,
// navigation, status line, theme toggle), with the page's own link marked
// aria-current. The quiz page marks its two
// links (quizzes, norm panel) itself, by route, so none is marked for it here.
const NAV = [
  { href: './', text: 'Explorer', page: 'index' },
  { href: './quiz.html', text: 'Quizzes', id: 'nav-quiz' },
  { href: './quiz.html#norm', text: 'Norm panel', id: 'nav-norm' },
  { href: './papers.html', text: 'Papers, reproduced', page: 'papers' },
  { href: './train.html', text: 'Training lab', page: 'train' },
];
const MARKER = /<!--\s*site-header:\s*([a-z-]+)\s*-->/g;
const HEAD_MARKER = /<!--\s*site-head\s*-->/;

export const SITE_HEAD = `<meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <link rel="icon" href="./src/favicon.svg" type="image/svg+xml" />`;

export function siteHeader(page) {
  const links = NAV.map((n) => {
    const id = n.id ? ` id="${n.id}"` : '';
    const current = n.page === page ? ' aria-current="page"' : '';
    return `<a href="${n.href}"${id}${current}>${n.text}</a>`;
  }).join('\n          ');
  return `<header class="site-header">
      <div class="brand">
        <h1>resnorm</h1>
        <p class="tagline">Why transformers need residual connections, and where the normalization goes</p>
        <nav class="site-nav" aria-label="Sections">
          ${links}
        </nav>
      </div>
      <div class="header-tools">
        <p id="status" class="status" role="status" aria-live="polite" data-state="loading">loading the engine…</p>
        <button id="theme-toggle" class="theme-toggle" type="button" aria-pressed="false">
          <span class="theme-icon" aria-hidden="true"></span>
          Dark theme
        </button>
      </div>
    </header>`;
}

export function headerPlugin() {
  return {
    name: 'resnorm-site-header',
    transformIndexHtml: {
      order: 'pre',
      handler: (html) => html.replace(HEAD_MARKER, SITE_HEAD).replace(MARKER, (_, page) => siteHeader(page)),
    },
  };
}
