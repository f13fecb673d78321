// Depot's dashboard script: the admin's rollback, promote and rollout buttons, and a refresh of
// the traffic figures every 30 seconds. The server renders every table; the page reads without it.
// Plain ES module, no build step.

// An action's result is shown where the operator is looking: in a line right after the row,
// card or form that was acted on (scrolled into view), and kept across the reload that shows
// the new state (sessionStorage), so a message is never lost.
function say(text, anchor) {
  const place = anchor ? document.querySelector(anchor) : null;
  let line = place ? place.nextElementSibling : null;
  if (place && !(line && line.matches("[data-result]"))) {
    line = document.createElement(place.matches("tr") ? "tr" : "p");
    line.setAttribute("data-result", "");
    line.setAttribute("role", "status");
    place.after(line);
  }
  const target = line || document.getElementById("status");
  if (target.matches("tr")) {
    target.innerHTML = "";
    const cell = target.insertCell();
    cell.colSpan = place.cells.length;
    cell.textContent = text;
  } else {
    target.textContent = text;
  }
  target.scrollIntoView({ block: "nearest" });
}

// Shows the result, then reloads the page to show the new state with the result kept.
function sayThenReload(text, anchor) {
  sessionStorage.setItem("depot-result", JSON.stringify({ text, anchor }));
  window.location.reload();
}

const kept = sessionStorage.getItem("depot-result");
if (kept) {
  sessionStorage.removeItem("depot-result");
  try {
    const { text, anchor } = JSON.parse(kept);
    say(text, anchor);
  } catch {}
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

// A button that acts on the second click: the first asks to confirm, naming the target
// ("Roll back stable from #4 to #3?").
function confirmable(button, question, anchor, action) {
  const idle = button.textContent;
  button.addEventListener("click", async () => {
    if (button.dataset.armed !== "true") {
      button.dataset.armed = "true";
      button.textContent = "Confirm";
      say(`${question()} Click Confirm to go ahead.`, anchor);
      return;
    }
    button.disabled = true;
    try {
      const answer = await action();
      sayThenReload(
        answer.to
          ? `${answer.channel} now serves release #${answer.to.number}.`
          : `${answer.channel}: rollout ${answer.state} at ${answer.percent}%.`,
        anchor,
      );
    } catch (error) {
      say(`${idle} failed: ${error.message}`, anchor);
      button.disabled = false;
      button.dataset.armed = "false";
      button.textContent = idle;
    }
  });
}

for (const button of document.querySelectorAll("button[data-action]")) {
  const name = button.dataset.channel;
  const channel = encodeURIComponent(name);
  const anchor = `tr[data-channel-row="${CSS.escape(name)}"]`;
  if (button.dataset.action === "rollback") {
    confirmable(button, () => button.dataset.confirm, anchor, () => post(`/v1/channels/${channel}/rollback`));
  } else if (button.dataset.action === "promote") {
    const select = document.querySelector(`select[data-promote-release="${CSS.escape(name)}"]`);
    confirmable(
      button,
      () => `Promote release #${select.value} to ${name}, now on #${button.dataset.current}?`,
      anchor,
      () => post(`/v1/channels/${channel}/promote`, { release: select.value }),
    );
  }
}

// Rollouts: pause, resume, halt and roll back, each on a second click; the start form sends
// what `depot rollout start` does, on a second click as every button.
for (const button of document.querySelectorAll("button[data-rollout-action]")) {
  const channel = encodeURIComponent(button.dataset.channel);
  const action = button.dataset.rolloutAction;
  const anchor = `article[data-rollout="${CSS.escape(button.dataset.channel)}"]`;
  confirmable(button, () => button.dataset.confirm, anchor, () => post(`/v1/channels/${channel}/rollout/${action}`));
}

for (const form of document.querySelectorAll("form.rollout-start")) {
  const anchor = `form.rollout-start[data-channel="${CSS.escape(form.dataset.channel)}"]`;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const field = (name) => form.elements.namedItem(name);
    const button = form.querySelector("button");
    const steps = field("steps").value.split(",").map((step) => Number(step.trim()));
    if (button.dataset.armed !== "true") {
      button.dataset.armed = "true";
      button.textContent = "Confirm";
      say(
        `Start rolling release #${field("release").value} out to ${form.dataset.channel} (now on #${button.dataset.current}), ` +
          `${steps[0]}% of its installs first? Click Confirm to go ahead.`,
        anchor,
      );
      return;
    }
    button.disabled = true;
    const minNetworks = field("minNetworks").value.trim();
    try {
      const rollout = await post(`/v1/channels/${encodeURIComponent(form.dataset.channel)}/rollout`, {
        release: field("release").value,
        steps,
        every: field("every").value.trim(),
        maxFailureRate: Number(field("maxFailurePercent").value) / 100,
        minReports: Number(field("minReports").value),
        autoRollback: field("autoRollback").checked,
        ...(minNetworks ? { minNetworks: Number(minNetworks) } : {}),
      });
      sayThenReload(`${rollout.channel}: release #${rollout.releaseNumber} at ${rollout.percent}%.`, anchor);
    } catch (error) {
      say(`Starting the rollout failed: ${error.message}`, anchor);
      button.disabled = false;
      button.dataset.armed = "false";
      button.textContent = "Start";
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
