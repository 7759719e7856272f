var e=class extends HTMLElement{connectedCallback(){let t=document.createElement("h1");t.textContent="Attest",this.replaceChildren(t)}};customElements.define("attest-app",e);
