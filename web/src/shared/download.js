// Saves a Blob (or text) as a file: a temporary <a download> and a blob: URL.
// Works under a strict CSP (no data: URL, no inline script) and from inside a
// shadow root (the link is added next to `near`, clicked and removed).
export function download(data, filename, type = 'text/plain;charset=utf-8', near = document.body) {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.hidden = true;
  (near ?? document.body).append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30000);
}
