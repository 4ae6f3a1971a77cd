// The reference ThumbHash encoder and decoder for the Python checks: reads one JSON request on stdin, writes one
// JSON answer on stdout.
//   {"encode": {"width": W, "height": H, "rgb": [...]}}  ->  {"hash": "<base64>"}
//   {"decode": "<base64>"}                               ->  {"width": W, "height": H, "rgb": [...], "average": [r, g, b, a]}
import { rgbaToThumbHash, thumbHashToRGBA, thumbHashToAverageRGBA } from "./thumbhash.mjs";

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const request = JSON.parse(input);
  if (request.encode) {
    const { width, height, rgb } = request.encode;
    const rgba = new Uint8Array(width * height * 4);
    for (let i = 0; i < width * height; i++) {
      rgba.set(rgb.slice(3 * i, 3 * i + 3), 4 * i);
      rgba[4 * i + 3] = 255;
    }
    process.stdout.write(JSON.stringify({ hash: Buffer.from(rgbaToThumbHash(width, height, rgba)).toString("base64") }));
  } else {
    const hash = new Uint8Array(Buffer.from(request.decode, "base64"));
    const { w, h, rgba } = thumbHashToRGBA(hash);
    const average = thumbHashToAverageRGBA(hash);
    const rgb = [];
    for (let i = 0; i < w * h; i++) rgb.push(rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2]);
    process.stdout.write(JSON.stringify({ width: w, height: h, rgb, average: [average.r, average.g, average.b, average.a] }));
  }
});
