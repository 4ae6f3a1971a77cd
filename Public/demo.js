// Backdrop's demo: CoreBackground in a browser. Two images of one photo, sharp below and light-effect above (the
// latter inline in /background.json, stretched to the window); the top one's opacity is scrollY / 80, clamped to 0...1. A new photo dissolves in (1 s) when the 15-minute window ends.
"use strict";

const MAX_SIDE = 2048;
const MAX_PIXELS = 4000000;
const backdrop = document.getElementById("backdrop");
const state = { pair: null, timer: null, place: null, accept: null };

// The output size: the viewport in device pixels, scaled down to fit the API's limits.
function outputSize() {
  const ratio = window.devicePixelRatio || 1;
  let width = Math.max(1, Math.round(window.innerWidth * ratio));
  let height = Math.max(1, Math.round(window.innerHeight * ratio));
  const scale = Math.min(1, MAX_SIDE / width, MAX_SIDE / height, Math.sqrt(MAX_PIXELS / (width * height)));
  width = Math.max(1, Math.floor(width * scale));
  height = Math.max(1, Math.floor(height * scale));
  return { width, height };
}

function scrollOpacity() {
  return Math.min(1, Math.max(0, window.scrollY / 80));
}

function applyScroll() {
  const opacity = String(scrollOpacity());
  for (const img of backdrop.querySelectorAll("img.blurred")) img.style.opacity = opacity;
}

// The place: ?lat=&lon= in the page address, else the browser's location, else none (a stock photo).
function locate() {
  const query = new URLSearchParams(window.location.search);
  if (query.has("lat") && query.has("lon")) {
    return Promise.resolve({ lat: query.get("lat"), lon: query.get("lon"), how: "from the page address" });
  }
  if (!("geolocation" in navigator)) return Promise.resolve(null);
  return new Promise((resolve) => {
    navigator.geolocation.getCurrentPosition(
      (position) => resolve({ lat: position.coords.latitude.toFixed(5), lon: position.coords.longitude.toFixed(5), how: "your location" }),
      () => resolve(null),
      { timeout: 8000, maximumAge: 600000 },
    );
  });
}

function placeQuery(place) {
  return place ? `lat=${encodeURIComponent(place.lat)}&lon=${encodeURIComponent(place.lon)}` : "";
}

// One-pixel images of the formats that not every browser decodes, to find out which this one does.
const PROBES = {
  avif: "data:image/avif;base64,AAAAIGZ0eXBhdmlmAAAAAGF2aWZtaWYxbWlhZk1BMUIAAADrbWV0YQAAAAAAAAAhaGRscgAAAAAAAAAAcGljdAAAAAAAAAAAAAAAAAAAAAAOcGl0bQAAAAAAAQAAAB5pbG9jAAAAAEQAAAEAAQAAAAEAAAETAAAAHgAAAChpaW5mAAAAAAABAAAAGmluZmUCAAAAAAEAAGF2MDFDb2xvcgAAAABqaXBycAAAAEtpcGNvAAAAFGlzcGUAAAAAAAAAAQAAAAEAAAAQcGl4aQAAAAADCAgIAAAADGF2MUOBAAwAAAAAE2NvbHJuY2x4AAEADQAGgAAAABdpcG1hAAAAAAAAAAEAAQQBAoMEAAAAJm1kYXQSAAoIGAAGiAhoNCAyEBlHh4Yhh5555oJAAJBAzeg=",
  webp: "data:image/webp;base64,UklGRiQAAABXRUJQVlA4IBgAAABQAQCdASoBAAEAAsBMJaQABHQAAORAAAA=",
};

// The Accept header for /background.json: its image URLs then come in the smallest format this browser decodes.
async function acceptedImages() {
  const decodes = async (uri) => {
    const img = new Image();
    img.src = uri;
    try {
      await img.decode();
      return img.naturalWidth === 1;
    } catch {
      return false;
    }
  };
  const types = [];
  for (const [format, uri] of Object.entries(PROBES)) {
    if (await decodes(uri)) types.push(`image/${format}`);
  }
  return ["application/json", ...types, "image/jpeg", "image/png;q=0.5"].join(", ");
}

async function fetchImage(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  const blob = await response.blob();
  return {
    photo: response.headers.get("X-Backdrop-Photo-Id"),
    type: response.headers.get("Content-Type"),
    bytes: blob.size,
    source: url,
    url: URL.createObjectURL(blob),
  };
}

function showCredit(info, place) {
  const text = document.getElementById("credit-text");
  text.textContent = "";
  const link = (href, label) => {
    const a = document.createElement("a");
    a.href = href;
    a.textContent = label;
    a.rel = "noopener";
    return a;
  };
  const title = info.title || "Untitled";
  const note = info.photoNote ? ` (${info.photoNote})` : "";
  if (info.photoPage && info.photoPage.startsWith("https://")) {
    text.append("“", link(info.photoPage, title), `”${note} by `);
  } else {
    text.append(`“${title}”${note} by `);
  }
  const owner = document.createElement("span");
  owner.id = "owner";
  owner.textContent = info.owner;
  text.append(owner, ", ");
  text.append(info.license.url ? link(info.license.url, info.license.name) : info.license.name);
  text.append(info.source === "stock" ? " · stock photo, modified (cropped and blurred)" : " · modified (cropped and blurred)");
  const notice = document.getElementById("notice");
  const stale = info.source.includes("stale") ? " Flickr is not answering: showing this place's earlier photo." : "";
  notice.textContent = (info.notice || "") + stale;
  notice.hidden = !(info.notice || stale);
  document.getElementById("place").textContent = place
    ? `Near ${place.lat}, ${place.lon} (${place.how})`
    : "Location unavailable: showing a stock photo";
  document.body.dataset.source = info.source;
}

// Loads both images of the current photo and dissolves them in over the previous pair.
async function load(place) {
  const size = outputSize();
  const where = placeQuery(place);
  const accept = state.accept || (state.accept = await acceptedImages());
  for (let attempt = 0; attempt < 3; attempt++) {
    // The JSON names the cell's image URLs (the same for everyone in the cell, so a CDN shares them).
    const query = `${where ? where + "&" : ""}width=${size.width}&height=${size.height}`;
    const info = await (await fetch(`/background.json?${query}`, { headers: { Accept: accept } })).json();
    // The blurred layer comes inside the JSON (about a kilobyte, exact once stretched): only the sharp image is fetched.
    const preview = info.images.blurredPreview;
    const blurred = {
      photo: info.photoId,
      type: preview.uri.slice(5, preview.uri.indexOf(";")),
      bytes: Math.floor(((preview.uri.length - preview.uri.indexOf(",") - 1) * 3) / 4),
      source: "inline",
      url: preview.uri,
    };
    const sharp = await fetchImage(info.images.sharp);
    if (sharp.photo !== info.photoId) {
      continue;  // the window turned between the requests: ask again
    }
    const pair = document.createElement("div");
    pair.className = "pair";
    pair.dataset.photo = info.photoId;
    for (const [image, name] of [[sharp, "sharp"], [blurred, "blurred"]]) {
      const img = document.createElement("img");
      img.className = name;
      img.alt = "";
      img.dataset.photo = image.photo;
      img.dataset.type = image.type;
      img.dataset.bytes = String(image.bytes);
      img.dataset.source = image.source;
      img.src = image.url;
      await img.decode();
      pair.append(img);
    }
    backdrop.append(pair);
    applyScroll();
    requestAnimationFrame(() => requestAnimationFrame(() => pair.classList.add("shown")));
    const previous = state.pair;
    state.pair = pair;
    if (previous) setTimeout(() => previous.remove(), 1100);
    showCredit(info, place);
    document.body.dataset.photo = info.photoId;
    document.body.dataset.ready = "1";
    clearTimeout(state.timer);
    state.timer = setTimeout(() => load(state.place), Math.max(1, info.window.secondsLeft) * 1000 + 500);
    return;
  }
  throw new Error("the photo changed three times while loading");
}

window.addEventListener("scroll", applyScroll, { passive: true });
locate()
  .then((place) => {
    state.place = place;
    return load(place);
  })
  .catch((error) => {
    document.getElementById("credit-text").textContent = `Backdrop could not load a photo (${error.message}).`;
    document.body.dataset.ready = "error";
  });
