import { createApp } from 'vue';
import { createPinia } from 'pinia';
import App from './App.vue';
import './style.css';

// The access token only needs to reach the server once (it is now an HttpOnly cookie): drop it from
// the address bar so it does not end up in screenshots or shared links.
if (new URLSearchParams(window.location.search).has('token')) {
  window.history.replaceState(null, '', window.location.pathname + window.location.hash);
}

createApp(App).use(createPinia()).mount('#app');
