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
// The element fills its own box: style it, e.g. position: fixed; inset: 0; z-index: -1 for a page background. Its sharp
// layer is /background.json's image-set() as a CSS background: the browser takes its screen's density and format.

const MAX_SIDE = 2048;
const MAX_PIXELS = 4000000;
const RETRY_SECONDS = 30;
const MODULE_ORIGIN = new URL(import.meta.url).origin;

const DENSITIES = [1, 1.5, 2, 3];

// One-pixel images of the formats that not every browser decodes, to find out which this one does.
const PROBES = {
  "image/avif": "data:image/avif;base64,AAAAIGZ0eXBhdmlmAAAAAGF2aWZtaWYxbWlhZk1BMUIAAADrbWV0YQAAAAAAAAAhaGRscgAAAAAAAAAAcGljdAAAAAAAAAAAAAAAAAAAAAAOcGl0bQAAAAAAAQAAAB5pbG9jAAAAAEQAAAEAAQAAAAEAAAETAAAAHgAAAChpaW5mAAAAAAABAAAAGmluZmUCAAAAAAEAAGF2MDFDb2xvcgAAAABqaXBycAAAAEtpcGNvAAAAFGlzcGUAAAAAAAAAAQAAAAEAAAAQcGl4aQAAAAADCAgIAAAADGF2MUOBAAwAAAAAE2NvbHJuY2x4AAEADQAGgAAAABdpcG1hAAAAAAAAAAEAAQQBAoMEAAAAJm1kYXQSAAoIGAAGiAhoNCAyEBlHh4Yhh5555oJAAJBAzeg=",
  "image/webp": "data:image/webp;base64,UklGRiQAAABXRUJQVlA4IBgAAABQAQCdASoBAAEAAsBMJaQABHQAAORAAAA=",
};
let decodedTypes = null;

// The image types this browser decodes, found once: JPEG, and AVIF and WebP if their probes decode.
function decodable() {
  if (decodedTypes) return decodedTypes;
  const decodes = (uri) => {
    const img = new Image();
    img.src = uri;
    return img.decode().then(() => img.naturalWidth === 1, () => false);
  };
  const types = Object.keys(PROBES);
  decodedTypes = Promise.all(types.map((t) => decodes(PROBES[t]))).then((ok) =>
    new Set(["image/jpeg", ...types.filter((_, i) => ok[i])]));
  return decodedTypes;
}

// What CSS image-set() takes of `options` (ascending by `x`) on this screen: the first at or above its pixel ratio,
// else the densest.
function forThisScreen(options) {
  const ratio = window.devicePixelRatio || 1;
  return options.find((o) => o.x >= ratio - 0.01) || options[options.length - 1];
}

// The density the browser takes from an image-set() of every density on this screen.
function density() {
  return forThisScreen(DENSITIES.map((x) => ({ x }))).x;
}

// `/background.json`'s image-set() with its URLs made absolute against Backdrop's origin (an inline style would read
// them against the page's), and the one URL the browser takes from it, as CSS image-set() chooses: of the options of
// types it decodes, by resolution (a stable sort: AVIF before WebP before JPEG at each), the one for this screen.
function imageSet(set, origin, types) {
  const options = [];
  const css = set.replace(/url\("([^"]+)"\)\s+type\("([^"]+)"\)\s+([\d.]+)x/g, (_, url, type, x) => {
    const absolute = new URL(url, origin).href;
    if (types.has(type)) options.push({ url: absolute, x: Number(x) });
    return `url("${absolute}") type("${type}") ${x}x`;
  });
  options.sort((a, b) => a.x - b.x);
  return { css, url: forThisScreen(options)?.url };
}

const STYLE = `
:host { display: block; position: relative; overflow: hidden; contain: layout paint; background: #1d1f22; }
.layers { position: absolute; inset: 0; }
.pair { position: absolute; inset: 0; opacity: 0; transition: opacity 1s ease; }
.pair.shown { opacity: 1; }
.pair.first { transition: none; }
img { position: absolute; inset: 0; width: 100%; height: 100%; display: block; }
.sharp { position: absolute; inset: 0; background: center / cover no-repeat; }
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

  // The size to ask for, in CSS pixels: the element's box, scaled down so that its image at the density this screen
  // takes from the image-set() stays within the API's limits (the cover crop stretches it back to the box).
  #outputSize() {
    const box = this.getBoundingClientRect();
    const x = density();
    let width = box.width || window.innerWidth;
    let height = box.height || window.innerHeight;
    // A side rounded up at 1.5x may gain half a pixel: the pixel limit keeps room for it.
    const pixels = MAX_PIXELS - 2 * MAX_SIDE;
    const scale = Math.min(1, MAX_SIDE / (width * x), MAX_SIDE / (height * x), Math.sqrt(pixels / (width * height * x * x)));
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

  // Loads the place's photo for this window: the inline preview at once (first load only), then the sharp layer, a
  // CSS background of the JSON's image-set(), so that the browser takes the density and format for its screen.
  async #load(generation) {
    if (generation !== this.#generation) return;
    if (!this.#pair) this.dataset.state = "loading";
    const [place, types] = await Promise.all([this.#place(), decodable()]);
    if (generation !== this.#generation) return;
    const size = this.#outputSize();
    const style = this.getAttribute("effect-style");
    const query = [place, `width=${size.width}`, `height=${size.height}`, style ? `style=${encodeURIComponent(style)}` : ""];
    for (let attempt = 0; attempt < 3; attempt++) {
      // Revalidated, never a cached answer of a window gone by (the service allows stale-while-revalidate).
      const answer = await fetch(`${this.#origin}/background.json?${query.filter(Boolean).join("&")}`, { cache: "no-cache" });
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
      // The image the browser takes from the set, revalidated (so this window's, whatever the cache held) and its
      // photo checked, then decoded from the cache: the layer paints it from memory at once, fetched once.
      const set = imageSet(info.images.imageSet.sharp, this.#origin, types);
      const image = await fetch(set.url, { cache: "no-cache" });
      if (!image.ok) throw new Error(`sharp image: HTTP ${image.status}`);
      await image.arrayBuffer();
      if (generation !== this.#generation) return;
      if (image.headers.get("X-Backdrop-Photo-Id") !== info.photoId) {
        if (first) { pair.remove(); this.#pair = null; }
        continue; // the window turned between the two requests: ask again
      }
      const probe = new Image();
      probe.src = set.url;
      await probe.decode().catch(() => { throw new Error(`sharp image: ${set.url} did not decode`); });
      if (generation !== this.#generation) return;
      const sharp = document.createElement("div");
      sharp.className = "sharp";
      sharp.dataset.image = set.url;
      sharp.style.backgroundImage = set.css;
      // If the box changed shape since, the cover crop keeps the photo's subject in view.
      if (info.focus) sharp.style.backgroundPosition = `${(info.focus.x * 100).toFixed(1)}% ${(info.focus.y * 100).toFixed(1)}%`;
      pair.prepend(sharp);
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
      setTimeout(() => previous.remove(), 1100);
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
