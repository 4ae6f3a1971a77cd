// <backdrop-background>: Backdrop's scroll-to-blur background for any page, as CoreBackground gave it to iOS apps.
// One tag loads it: <script type="module" src="https://backdrop.example/backdrop.js"></script>. No dependencies.
//
// Attributes: lat, lon (or cell) or geolocate (ask the browser; a stock photo if refused); effect-style (light,
// extralight, dark, none); scroll-target (a CSS selector of the scrolling element, the document by default);
// fade-distance (pixels of scroll until fully blurred, 80); src (the Backdrop origin, this module's own by default).
// Events: backdrop-load (detail: /background.json's answer), backdrop-error (detail: { message }).
// Text over it: the element sets --backdrop-text (#fff or #000) and --backdrop-scrim (an rgba() to lay behind that
// text) for the whole picture, and the same with -top and -bottom for its top and bottom 15 %, following the scroll;
// on itself and on the scroll-target (or the document's root), so that the text scrolling over it can use them.
// The element fills its own box: style it, e.g. position: fixed; inset: 0; z-index: -1 for a page background.

const MAX_SIDE = 2048;
const MAX_PIXELS = 4000000;
const RETRY_SECONDS = 30;
const MODULE_ORIGIN = new URL(import.meta.url).origin;

// One-pixel images of the formats that not every browser decodes, to find out which this one does.
const PROBES = {
  avif: "data:image/avif;base64,AAAAIGZ0eXBhdmlmAAAAAGF2aWZtaWYxbWlhZk1BMUIAAADrbWV0YQAAAAAAAAAhaGRscgAAAAAAAAAAcGljdAAAAAAAAAAAAAAAAAAAAAAOcGl0bQAAAAAAAQAAAB5pbG9jAAAAAEQAAAEAAQAAAAEAAAETAAAAHgAAAChpaW5mAAAAAAABAAAAGmluZmUCAAAAAAEAAGF2MDFDb2xvcgAAAABqaXBycAAAAEtpcGNvAAAAFGlzcGUAAAAAAAAAAQAAAAEAAAAQcGl4aQAAAAADCAgIAAAADGF2MUOBAAwAAAAAE2NvbHJuY2x4AAEADQAGgAAAABdpcG1hAAAAAAAAAAEAAQQBAoMEAAAAJm1kYXQSAAoIGAAGiAhoNCAyEBlHh4Yhh5555oJAAJBAzeg=",
  webp: "data:image/webp;base64,UklGRiQAAABXRUJQVlA4IBgAAABQAQCdASoBAAEAAsBMJaQABHQAAORAAAA=",
};
let acceptHeader = null;

// The Accept header for /background.json: its image URLs then come in the smallest format this browser decodes.
function accepted() {
  if (acceptHeader) return acceptHeader;
  const decodes = (uri) => {
    const img = new Image();
    img.src = uri;
    return img.decode().then(() => img.naturalWidth === 1, () => false);
  };
  const formats = Object.keys(PROBES);
  acceptHeader = Promise.all(formats.map((f) => decodes(PROBES[f]))).then((ok) =>
    ["application/json", ...formats.filter((_, i) => ok[i]).map((f) => `image/${f}`), "image/jpeg", "image/png;q=0.5"].join(", "));
  return acceptHeader;
}

const STYLE = `
:host { display: block; position: relative; overflow: hidden; contain: layout paint; background: #1d1f22; }
.layers { position: absolute; inset: 0; }
.pair { position: absolute; inset: 0; opacity: 0; transition: opacity 1s ease; }
.pair.shown { opacity: 1; }
.pair.first { transition: none; }
img { position: absolute; inset: 0; width: 100%; height: 100%; display: block; }
img.sharp { object-fit: cover; }
img.blurred { object-fit: fill; opacity: var(--backdrop-blur, 0); }
.pair.waiting img.blurred { opacity: 1; }
.credit { position: absolute; left: 0; right: 0; bottom: 0; padding: 6px 12px; font: 12px/1.4 system-ui, sans-serif;
          color: var(--backdrop-text-bottom, #fff); background: var(--backdrop-scrim-bottom, rgba(0, 0, 0, .45));
          display: flex; flex-wrap: wrap; gap: 2px 10px; }
.credit:empty { display: none; }
.credit a { color: inherit; }
@media (prefers-reduced-motion: reduce) { .pair { transition: none; } }
`;

function clamp(value, low, high) {
  return Math.min(high, Math.max(low, value));
}

class BackdropBackground extends HTMLElement {
  static observedAttributes = ["lat", "lon", "cell", "geolocate", "effect-style", "src", "scroll-target", "fade-distance"];

  #layers;
  #credit;
  #legibility = null;
  #pair = null;
  #timer = 0;
  #frame = 0;
  #scroller = null;
  #generation = 0;
  #size = null;
  #resize = new ResizeObserver(() => this.#resized());
  #onScroll = () => {
    if (!this.#frame) this.#frame = requestAnimationFrame(() => { this.#frame = 0; this.#applyScroll(); });
  };

  constructor() {
    super();
    const root = this.attachShadow({ mode: "open" });
    root.innerHTML = `<style>${STYLE}</style><div class="layers" part="layers"></div><div class="credit" part="credit"></div>`;
    [this.#layers, this.#credit] = root.querySelectorAll("div");
  }

  connectedCallback() {
    this.#listen();
    this.#resize.observe(this);
    this.#reload();
  }

  disconnectedCallback() {
    this.#unlisten();
    this.#resize.disconnect();
    clearTimeout(this.#timer);
    this.#generation++;
  }

  attributeChangedCallback(name, before, after) {
    if (!this.isConnected || before === after) return;
    if (name === "scroll-target") this.#listen();
    if (name === "scroll-target" || name === "fade-distance") this.#applyScroll();
    else this.#reload();
  }

  get #origin() {
    return (this.getAttribute("src") || MODULE_ORIGIN).replace(/\/+$/, "");
  }

  #listen() {
    this.#unlisten();
    const selector = this.getAttribute("scroll-target");
    let target = null;
    try {
      target = selector ? document.querySelector(selector) : null;
    } catch (error) {
      // Not a selector ("[["): the document scrolls the layers, and the page hears why.
      this.dispatchEvent(new CustomEvent("backdrop-error", { detail: { message: `scroll-target: ${error?.message || error}` } }));
    }
    this.#scroller = target || window;
    this.#scroller.addEventListener("scroll", this.#onScroll, { passive: true });
  }

  #unlisten() {
    this.#scroller?.removeEventListener("scroll", this.#onScroll);
    this.#scroller = null;
  }

  // The blurred layer's opacity: scroll position over fade-distance, clamped to 0...1; and the text colour and scrim
  // that follow it (see #applyLegibility).
  #applyScroll() {
    const scroller = this.#scroller;
    const top = !scroller || scroller === window ? window.scrollY : scroller.scrollTop;
    const distance = Number(this.getAttribute("fade-distance")) || 80;
    const blur = clamp(top / distance, 0, 1);
    this.#layers.style.setProperty("--backdrop-blur", String(blur));
    this.#applyLegibility(blur);
  }

  // --backdrop-text and --backdrop-scrim (the whole picture), and the same with -top and -bottom (its top and bottom
  // 15 %), at `blur`: the text colour of the nearer layer, and its scrim's opacity between the sharp layer's and the
  // blurred layer's. Set on this element (its own credit uses the bottom pair) and on the element that scrolls over
  // it (the scroll-target, or the document's root), whose text sits on the picture.
  #applyLegibility(blur) {
    const legibility = this.#legibility;
    if (!legibility) return;
    const targets = [this, this.#scroller && this.#scroller !== window ? this.#scroller : document.documentElement];
    for (const [region, suffix] of [["whole", ""], ["top", "-top"], ["bottom", "-bottom"]]) {
      const sharp = legibility.sharp[region];
      const blurred = legibility.blurred[region];
      const text = (blur < 0.5 ? sharp : blurred).text;
      const opacity = sharp[text].scrim + (blurred[text].scrim - sharp[text].scrim) * blur;
      const scrim = text === "light" ? `rgba(0, 0, 0, ${opacity.toFixed(3)})` : `rgba(255, 255, 255, ${opacity.toFixed(3)})`;
      for (const target of targets) {
        target.style.setProperty(`--backdrop-text${suffix}`, text === "light" ? "#fff" : "#000");
        target.style.setProperty(`--backdrop-scrim${suffix}`, scrim);
      }
    }
  }

  // The output size: the element's box in device pixels, scaled down to fit the API's limits.
  #outputSize() {
    const box = this.getBoundingClientRect();
    const ratio = window.devicePixelRatio || 1;
    let width = Math.round((box.width || window.innerWidth) * ratio);
    let height = Math.round((box.height || window.innerHeight) * ratio);
    const scale = Math.min(1, MAX_SIDE / width, MAX_SIDE / height, Math.sqrt(MAX_PIXELS / (width * height)));
    width = Math.max(1, Math.floor(width * scale));
    height = Math.max(1, Math.floor(height * scale));
    return { width, height };
  }

  // A new box more than a fifth larger or smaller on a side (a phone turned) asks for an image of its shape.
  #resized() {
    const size = this.#size;
    if (!size) return;
    const now = this.#outputSize();
    if (Math.abs(now.width - size.width) > size.width / 5 || Math.abs(now.height - size.height) > size.height / 5) this.#reload();
  }

  #reload() {
    clearTimeout(this.#timer);
    const generation = ++this.#generation;
    queueMicrotask(() => this.#load(generation).catch((error) => this.#failed(generation, error)));
  }

  async #place() {
    if (this.hasAttribute("cell")) return `cell=${encodeURIComponent(this.getAttribute("cell"))}`;
    if (this.hasAttribute("lat") && this.hasAttribute("lon")) {
      return `lat=${encodeURIComponent(this.getAttribute("lat"))}&lon=${encodeURIComponent(this.getAttribute("lon"))}`;
    }
    if (!this.hasAttribute("geolocate") || !("geolocation" in navigator)) return "";
    return new Promise((resolve) => navigator.geolocation.getCurrentPosition(
      (p) => resolve(`lat=${p.coords.latitude.toFixed(5)}&lon=${p.coords.longitude.toFixed(5)}`),
      () => resolve(""),
      { timeout: 8000, maximumAge: 600000 },
    ));
  }

  // Loads the place's photo for this window: the inline preview at once (first load only), then the sharp image.
  async #load(generation) {
    if (generation !== this.#generation) return;
    if (!this.#pair) this.dataset.state = "loading";
    const [place, accept] = await Promise.all([this.#place(), accepted()]);
    if (generation !== this.#generation) return;
    const size = this.#outputSize();
    const style = this.getAttribute("effect-style");
    const query = [place, `width=${size.width}`, `height=${size.height}`, style ? `style=${encodeURIComponent(style)}` : ""];
    for (let attempt = 0; attempt < 3; attempt++) {
      const answer = await fetch(`${this.#origin}/background.json?${query.filter(Boolean).join("&")}`, { headers: { Accept: accept } });
      if (!answer.ok) throw new Error(`/background.json: HTTP ${answer.status}`);
      const info = await answer.json();
      if (generation !== this.#generation) return;
      this.#layers.style.background = info.images.color;
      const pair = document.createElement("div");
      pair.className = "pair waiting";
      pair.dataset.photo = info.photoId;
      const blurred = new Image();
      blurred.className = "blurred";
      blurred.alt = "";
      blurred.src = info.images.blurredPreview.uri;
      await blurred.decode();
      pair.append(blurred);
      const first = !this.#pair;
      if (first) {
        this.#legibility = info.legibility || null;
        this.#show(pair, true);
        this.#showCredit(info);
        this.dataset.state = "preview";
      }
      const sharp = await fetch(new URL(info.images.sharp, this.#origin));
      if (!sharp.ok) throw new Error(`sharp image: HTTP ${sharp.status}`);
      const blob = await sharp.blob();
      if (generation !== this.#generation) return;
      if (sharp.headers.get("X-Backdrop-Photo-Id") !== info.photoId) {
        if (first) { pair.remove(); this.#pair = null; }
        continue; // the window turned between the two requests: ask again
      }
      const img = new Image();
      img.className = "sharp";
      img.alt = "";
      // If the box changed shape since, the cover crop keeps the photo's subject in view.
      if (info.focus) img.style.objectPosition = `${(info.focus.x * 100).toFixed(1)}% ${(info.focus.y * 100).toFixed(1)}%`;
      img.src = URL.createObjectURL(blob);
      await img.decode();
      if (generation !== this.#generation) return URL.revokeObjectURL(img.src);
      pair.prepend(img);
      pair.classList.remove("waiting");
      this.#legibility = info.legibility || null;
      if (!first) this.#show(pair, false);
      this.#size = size;
      this.#showCredit(info);
      this.dataset.state = "ready";
      this.dataset.photo = info.photoId;
      this.dataset.source = info.source;
      this.#timer = setTimeout(() => this.#reload(), Math.max(1, info.window.secondsLeft) * 1000 + 500);
      this.dispatchEvent(new CustomEvent("backdrop-load", { detail: info }));
      return;
    }
    throw new Error("the photo changed three times while loading");
  }

  // Puts `pair` on top: at once the first time, else dissolving over the previous photo, which then goes.
  #show(pair, first) {
    const previous = this.#pair;
    this.#pair = pair;
    pair.classList.toggle("first", first);
    this.#layers.append(pair);
    this.#applyScroll();
    if (first) {
      pair.classList.add("shown");
    } else {
      requestAnimationFrame(() => requestAnimationFrame(() => pair.classList.add("shown")));
    }
    if (previous) {
      setTimeout(() => {
        previous.querySelectorAll("img.sharp").forEach((img) => URL.revokeObjectURL(img.src));
        previous.remove();
      }, 1100);
    }
  }

  #showCredit(info) {
    const link = (href, text) => {
      const a = document.createElement("a");
      a.href = href;
      a.append(text);
      a.rel = "noopener";
      a.target = "_blank";
      return a;
    };
    // Names and titles in any script, isolated (<bdi>) so that their direction controls cannot reorder the credit.
    const isolated = (text) => {
      const bdi = document.createElement("bdi");
      bdi.textContent = text;
      return bdi;
    };
    const photo = document.createElement("span");
    const title = isolated(info.title || "Untitled");
    photo.append("“", info.photoPage?.startsWith("https://") ? link(info.photoPage, title) : title, "”");
    if (info.photoNote) photo.append(" (", isolated(info.photoNote), ")");
    const license = isolated(info.license.name);
    photo.append(" by ", isolated(info.owner), ", ", info.license.url ? link(info.license.url, license) : license,
      info.source === "stock" ? " · stock photo, modified" : " · modified");
    this.#credit.replaceChildren(photo);
    if (info.notice) {
      const notice = document.createElement("span");
      notice.textContent = info.notice;
      this.#credit.append(notice);
    }
  }

  // Never into the page: the event says what failed, the colour (or the last photo) stays, and a later try follows.
  #failed(generation, error) {
    if (generation !== this.#generation) return;
    if (!this.#pair) this.dataset.state = "error";
    this.dispatchEvent(new CustomEvent("backdrop-error", { detail: { message: String(error?.message || error) } }));
    this.#timer = setTimeout(() => this.#reload(), RETRY_SECONDS * 1000);
  }
}

if (!customElements.get("backdrop-background")) customElements.define("backdrop-background", BackdropBackground);
