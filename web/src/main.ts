// Entry point of the page served at / by `attest serve` (docs/web.md).
class AttestApp extends HTMLElement {
  connectedCallback(): void {
    const h = document.createElement('h1');
    h.textContent = 'Attest';
    this.replaceChildren(h);
  }
}
customElements.define('attest-app', AttestApp);
