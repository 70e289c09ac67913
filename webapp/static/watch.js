// Watch: the slider jumps to a step; "play" goes on to the next step every 0.7 s until the
// last one (each step is a page of its own, so this is all the script there is).
const steps = document.getElementById("steps");
const base = steps.dataset.base;
const step = Number(steps.dataset.step);
const last = Number(steps.dataset.last);
const playing = steps.dataset.playing === "1";
document.getElementById("slider").addEventListener("change", (event) => {
  window.location.href = base + event.target.value + (playing ? "&play=1" : "");
});
document.addEventListener("keydown", (event) => {
  if (event.key === "ArrowLeft") document.getElementById("prev").click();
  if (event.key === "ArrowRight") document.getElementById("next").click();
});
if (playing && step < last) {
  setTimeout(() => { window.location.href = base + (step + 1) + "&play=1"; }, 700);
}
