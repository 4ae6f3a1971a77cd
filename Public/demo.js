// Backdrop's demo: a user of <backdrop-background> (/backdrop.js) like any other page. This script only chooses the
// place (?lat=&lon= in the page address, else the browser's location, else none: a stock photo), then loads the
// component, and says on the page where the photo is from.
const backdrop = document.getElementById("backdrop");
const placeText = document.getElementById("place");

function locate() {
  const query = new URLSearchParams(window.location.search);
  if (query.has("lat") && query.has("lon")) {
    return Promise.resolve({ lat: query.get("lat"), lon: query.get("lon"), how: "from the page address" });
  }
  if (!("geolocation" in navigator)) return Promise.resolve(null);
  return new Promise((resolve) => navigator.geolocation.getCurrentPosition(
    (p) => resolve({ lat: p.coords.latitude.toFixed(5), lon: p.coords.longitude.toFixed(5), how: "your location" }),
    () => resolve(null),
    { timeout: 8000, maximumAge: 600000 },
  ));
}

const place = await locate();
if (place) {
  backdrop.setAttribute("lat", place.lat);
  backdrop.setAttribute("lon", place.lon);
}
backdrop.addEventListener("backdrop-load", (event) => {
  const info = event.detail;
  const stale = info.source.includes("stale") ? " Flickr is not answering: showing this place's earlier photo." : "";
  placeText.textContent = (place ? `Near ${place.lat}, ${place.lon} (${place.how})` : "Location unavailable: showing a stock photo") + stale;
});
backdrop.addEventListener("backdrop-error", (event) => {
  placeText.textContent = `Backdrop could not load a photo (${event.detail.message}).`;
});
await import("/backdrop.js");
