// The teaching page's entry (filled in by the UI work).
const app = document.querySelector('#app');
if (app) app.textContent = 'webddp';
