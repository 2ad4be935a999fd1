window.tarock.nav('home');
