// Depot's dashboard script: the admin's rollback, promote and rollout buttons, and a refresh of
// the traffic figures every 30 seconds. The server renders every table; the page reads without it.
// Plain ES module, no build step.

const status = document.getElementById("status");

function say(text) {
  status.textContent = text;
}

// The error message of a Depot JSON error body ({"error": {"message": …}}), or the text.
function reason(text, code) {
  try {
    return JSON.parse(text).error.message;
  } catch {
    return text || `HTTP ${code}`;
  }
}

// Calls the publisher API with the credentials the browser holds. X-Requested-With tells Depot
// this is the page's own request, not another site's form.
async function post(url, body) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "X-Requested-With": "depot-dashboard", "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(reason(text, response.status));
  return JSON.parse(text);
}

// A button that acts on the second click: the first asks "Confirm …?".
function confirmable(button, label, action) {
  const idle = button.textContent;
  button.addEventListener("click", async () => {
    if (button.dataset.armed !== "true") {
      button.dataset.armed = "true";
      button.textContent = `Confirm ${label.toLowerCase()}?`;
      return;
    }
    button.disabled = true;
    try {
      const answer = await action();
      say(answer.to ? `${answer.channel} now serves release #${answer.to.number}.` : `${answer.channel}: rollout ${answer.state} at ${answer.percent}%.`);
      window.location.reload();
    } catch (error) {
      say(`${label} failed: ${error.message}`);
      button.disabled = false;
      button.dataset.armed = "false";
      button.textContent = idle;
    }
  });
}

for (const button of document.querySelectorAll("button[data-action]")) {
  const channel = encodeURIComponent(button.dataset.channel);
  if (button.dataset.action === "rollback") {
    confirmable(button, "Roll back", () => post(`/v1/channels/${channel}/rollback`));
  } else if (button.dataset.action === "promote") {
    const select = document.querySelector(`select[data-promote-release="${CSS.escape(button.dataset.channel)}"]`);
    confirmable(button, "Promote", () => post(`/v1/channels/${channel}/promote`, { release: select.value }));
  }
}

// Rollouts: pause, resume, halt and roll back, each on a second click; the start form sends
// what `depot rollout start` does.
for (const button of document.querySelectorAll("button[data-rollout-action]")) {
  const channel = encodeURIComponent(button.dataset.channel);
  const action = button.dataset.rolloutAction;
  confirmable(button, button.textContent, () => post(`/v1/channels/${channel}/rollout/${action}`));
}

for (const form of document.querySelectorAll("form.rollout-start")) {
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const field = (name) => form.elements.namedItem(name);
    const button = form.querySelector("button");
    button.disabled = true;
    try {
      const rollout = await post(`/v1/channels/${encodeURIComponent(form.dataset.channel)}/rollout`, {
        release: field("release").value,
        steps: field("steps").value.split(",").map((step) => Number(step.trim())),
        everySeconds: Number(field("everySeconds").value),
        maxFailureRate: Number(field("maxFailurePercent").value) / 100,
        minReports: Number(field("minReports").value),
        autoRollback: field("autoRollback").checked,
      });
      say(`${rollout.channel}: release #${rollout.releaseNumber} at ${rollout.percent}%.`);
      window.location.reload();
    } catch (error) {
      say(`Starting the rollout failed: ${error.message}`);
      button.disabled = false;
    }
  });
}

async function refreshTraffic() {
  const response = await fetch("/v1/admin/traffic");
  if (!response.ok) return;
  const traffic = await response.json();
  for (const [name, text] of Object.entries(traffic.figures)) {
    const figure = document.querySelector(`[data-figure="${name}"]`);
    if (figure) figure.textContent = text;
  }
}

if (document.querySelector("[data-figure]")) {
  setInterval(() => refreshTraffic().catch(() => {}), 30_000);
}
