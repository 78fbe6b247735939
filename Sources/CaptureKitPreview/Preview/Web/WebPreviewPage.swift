import CaptureKit

/// The web preview's page: the live MJPEG picture, the device name, frame-rate and drop
/// counters from `status.json`, photo and record buttons, the newest library items, and the
/// timeline of events and clips, each finished clip playable in the page's player. Every URL
/// carries the page's own access token.
enum WebPreviewPage {
    static let html = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>CaptureKit live preview</title>
        <style>
          body { font-family: sans-serif; background: #111; color: #eee; margin: 1em; }
          #live { max-width: 100%; background: #000; display: block; }
          button { font-size: 1.1em; margin: 0.5em 0.5em 0.5em 0; padding: 0.4em 1em; }
          #library img { height: 90px; margin: 4px; border: 1px solid #444; }
          .counters span { margin-right: 1.5em; }
          #message { color: #f88; }
          #timeline { list-style: none; padding: 0; }
          #timeline li { display: flex; align-items: center; gap: 0.8em; margin: 4px 0; }
          #timeline img { height: 60px; border: 1px solid #444; }
          #timeline li[data-state="failed"] { color: #f88; }
          #player { max-width: 100%; display: block; margin: 0.5em 0; }
        </style>
        </head>
        <body>
        <h1 id="device">…</h1>
        <img id="live" alt="live picture">
        <div class="counters">
          <span>fps <b id="fps">0</b></span>
          <span>frames <b id="frames">0</b></span>
          <span>dropped <b id="dropped">0</b></span>
          <span>viewers <b id="viewers">0</b></span>
        </div>
        <div id="controls" hidden>
          <button id="photo">Photo</button>
          <button id="record">Record</button>
        </div>
        <div id="message"></div>
        <div id="library"></div>
        <h2>Events</h2>
        <video id="player" controls playsinline hidden></video>
        <ol id="timeline"></ol>
        <script>
        const token = new URLSearchParams(location.search).get("token") || "";
        const withToken = (path) => path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(token);
        document.getElementById("live").src = withToken("stream.mjpg");
        let recording = false;
        async function post(path) {
          const message = document.getElementById("message");
          message.textContent = "";
          const response = await fetch(withToken(path), { method: "POST" });
          if (!response.ok) { message.textContent = await response.text(); }
          await refresh();
        }
        document.getElementById("photo").onclick = () => post("photo");
        document.getElementById("record").onclick = () => post(recording ? "record/stop" : "record/start");
        function play(item) {
          const player = document.getElementById("player");
          player.hidden = false;
          player.dataset.id = item.id;
          player.src = withToken(item.clip);
          player.play().catch(() => {});
        }
        function timelineEntry(item) {
          const row = document.createElement("li");
          row.dataset.id = item.id;
          row.dataset.kind = item.kind;
          row.dataset.state = item.state;
          if (item.thumbnail) {
            const image = document.createElement("img");
            image.src = withToken(item.thumbnail);
            image.alt = item.title;
            row.append(image);
          }
          const words = [new Date(item.time).toLocaleTimeString(), item.kind];
          if (item.title !== item.kind) { words.push(item.title); }
          if (item.duration != null) { words.push(item.duration.toFixed(1) + " s"); }
          if (item.state === "recording") { words.push("recording…"); }
          if (item.state === "failed") { words.push("failed"); }
          if (item.detail) { words.push(item.detail); }
          const text = document.createElement("span");
          text.textContent = words.join(" · ");
          row.append(text);
          if (item.clip) {
            const button = document.createElement("button");
            button.className = "play";
            button.textContent = "Play";
            button.onclick = () => play(item);
            row.append(button);
          }
          return row;
        }
        async function refresh() {
          const status = await (await fetch(withToken("status.json"), { cache: "no-store" })).json();
          document.getElementById("device").textContent = status.device + " (" + status.width + "x" + status.height + ")";
          document.getElementById("fps").textContent = status.framesPerSecond.toFixed(1);
          document.getElementById("frames").textContent = status.framesReceived;
          document.getElementById("dropped").textContent = status.droppedFrames;
          document.getElementById("viewers").textContent = status.viewers;
          document.getElementById("controls").hidden = !status.controls;
          recording = status.isRecording;
          const button = document.getElementById("record");
          button.textContent = recording ? "Stop" : "Record";
          button.dataset.recording = recording;
          const library = document.getElementById("library");
          const ids = status.library.map((item) => item.id).join(",");
          if (library.dataset.ids !== ids) {
            library.dataset.ids = ids;
            library.replaceChildren(...status.library.map((item) => {
              const image = document.createElement("img");
              image.src = withToken(item.thumbnail);
              image.title = item.kind;
              image.dataset.id = item.id;
              image.dataset.kind = item.kind;
              return image;
            }));
          }
          const timeline = document.getElementById("timeline");
          const entries = JSON.stringify(status.timeline);
          if (timeline.dataset.entries !== entries) {
            timeline.dataset.entries = entries;
            timeline.replaceChildren(...status.timeline.map(timelineEntry));
          }
        }
        refresh();
        setInterval(refresh, 1000);
        </script>
        </body>
        </html>
        """
}
