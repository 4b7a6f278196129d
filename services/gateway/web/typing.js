// A reply while a model writes it: `reply.delta` events fill a provisional bubble, and the
// reply event that follows replaces it (the final text wins: code may reword what the model
// wrote). A replayed stream may skip or repeat deltas; the final reply is always there.

const bubbles = new Map(); // turn id -> {li, body, next}
const ended = new Set(); // turns whose reply arrived: a piece that comes later is dropped

// Append one delta ({turn_id, text, index}) to its turn's provisional bubble, in order.
export function showDelta(delta) {
  if (ended.has(delta.turn_id)) return;
  let bubble = bubbles.get(delta.turn_id);
  if (!bubble) {
    const li = document.createElement("li");
    li.className = "message assistant typing";
    li.dataset.turnId = delta.turn_id;
    li.dataset.role = "assistant";
    const who = document.createElement("span");
    who.className = "who";
    who.textContent = "planwire";
    const body = document.createElement("p");
    li.append(who, body);
    document.getElementById("messages").append(li);
    bubble = { li, body, next: 0 };
    bubbles.set(delta.turn_id, bubble);
  }
  if (delta.index !== bubble.next) return; // a repeat from a replay, or a gap: the reply fixes it
  bubble.body.textContent += delta.text;
  bubble.next += 1;
}

// The turn's reply arrived: drop its provisional bubble (the page draws the reply itself).
export function endTyping(turnId) {
  const bubble = bubbles.get(turnId);
  if (bubble) bubble.li.remove();
  bubbles.delete(turnId);
  ended.add(turnId);
}
