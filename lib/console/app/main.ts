import { ConsoleApi } from './api.js';
import { type ConsoleConfig, loadConfig } from './config.js';
import { problemText } from './dialog.js';
import { field, h, notice, replace } from './dom.js';
import { personName, timeIn } from './format.js';
import { type ControlsView, type Page, type PageContext, rolesOf } from './page.js';
import { controlsPage } from './pages/controls.js';
import { deadLettersPage } from './pages/dead-letters.js';
import { operatorsPage } from './pages/operators.js';
import { payoutsPage } from './pages/payouts.js';
import { queuePage } from './pages/queue.js';
import { reviewPage } from './pages/review.js';
import { runsPage } from './pages/runs.js';
import { statementsPage } from './pages/statements.js';
import {
  beginHostedSignIn,
  completeHostedSignIn,
  hostedSignOutUrl,
  passwordSignIn,
  type Session,
  SignInError,
} from './session.js';

const PAGES: readonly { path: string; label: string; page: Page; role?: string }[] = [
  { path: 'queue', label: 'My queue', page: queuePage },
  { path: 'payouts', label: 'Payouts', page: payoutsPage },
  { path: 'review', label: 'Needs review', page: reviewPage },
  { path: 'runs', label: 'Runs', page: runsPage },
  { path: 'controls', label: 'Controls', page: controlsPage },
  { path: 'dead-letters', label: 'Dead letters', page: deadLettersPage },
  { path: 'statements', label: 'Statements', page: statementsPage },
  { path: 'operators', label: 'Operators', page: operatorsPage, role: 'admin' },
];

const root = (): HTMLElement => {
  const element = document.getElementById('app');
  if (!element) throw new Error('no #app element');
  return element;
};

function signInView(config: ConsoleConfig, message?: string): void {
  if (config.signIn.mode === 'hosted') {
    const hosted = config.signIn;
    replace(
      root(),
      h(
        'main',
        { class: 'sign-in' },
        h('h1', {}, 'Payouts console'),
        message && notice('info', message),
        h(
          'button',
          { type: 'button', class: 'primary', onclick: () => void beginHostedSignIn(hosted) },
          'Sign in',
        ),
      ),
    );
    return;
  }
  const local = config.signIn;
  const username = h('input', { name: 'username', autocomplete: 'username', required: true });
  const password = h('input', {
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const status = h('div', { class: 'status-region' }, message && notice('info', message));
  const form = h(
    'form',
    { class: 'card', 'aria-labelledby': 'sign-in' },
    h('h1', { id: 'sign-in' }, 'Payouts console'),
    h('p', {}, 'Sign in with your operator account.'),
    status,
    field('Username', username),
    field('Password', password),
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void passwordSignIn(local, username.value.trim(), password.value)
      .then((session) => startSession(config, session))
      .catch((error: unknown) => {
        password.value = '';
        replace(status, notice('error', error instanceof SignInError ? error.message : problemText(error)));
      });
  });
  replace(root(), h('main', { class: 'sign-in' }, form));
  username.focus();
}

function pauseBanner(ctx: PageContext, controls: ControlsView): HTMLElement | undefined {
  if (!controls.paused) return undefined;
  return h(
    'div',
    { class: 'pause-banner', role: 'alert' },
    h('strong', {}, 'Payouts are paused: nothing is sent. '),
    controls.reason ? `${controls.reason}. ` : '',
    controls.updatedBy ? `Paused by ${personName(controls.updatedBy.id)} ` : '',
    controls.updatedAt ? timeIn(ctx.config.timeZone, controls.updatedAt) : '',
  );
}

function startSession(config: ConsoleConfig, session: Session): void {
  let signedOut = false;
  const onHashChange = () => void render();
  const signOut = (message?: string) => {
    if (signedOut) return;
    signedOut = true;
    window.removeEventListener('hashchange', onHashChange);
    if (config.signIn.mode === 'hosted' && !message) location.assign(hostedSignOutUrl(config.signIn));
    else signInView(config, message);
  };
  const api = new ConsoleApi(config.apiUrl, session, () => signOut('Your session has ended: sign in again.'));
  const roles = rolesOf(session.person);
  const banner = h('div', { class: 'banner-region' });
  const main = h('main', { id: 'main', tabindex: -1 });
  // A link to the page shown reads it again (the hash does not change, so no hashchange would).
  // A page of a role the person lacks is not offered (the API would refuse its calls anyway).
  const pages = PAGES.filter((page) => page.role === undefined || roles.has(page.role));
  const links = pages.map(({ path, label }) =>
    h('a', { href: `#/${path}`, onclick: () => location.hash === `#/${path}` && void render() }, label),
  );
  replace(
    root(),
    h(
      'a',
      {
        class: 'skip',
        href: '#main',
        onclick: (event: Event) => {
          event.preventDefault();
          main.focus();
        },
      },
      'Skip to content',
    ),
    h(
      'header',
      {},
      h('span', { class: 'brand' }, 'Payouts console'),
      h('nav', { 'aria-label': 'Pages' }, ...links),
      h(
        'span',
        { class: 'who' },
        `${session.person.username} (${session.person.groups.join(', ') || 'no group'})`,
      ),
      h('button', { type: 'button', class: 'secondary', onclick: () => signOut() }, 'Sign out'),
    ),
    banner,
    main,
  );
  let shown = 0;
  // What a change said, for the next drawing of the page only.
  let pendingFlash: string | undefined;
  async function render(): Promise<void> {
    const [pathPart = ''] = location.hash.replace(/^#\/?/, '').split('?');
    const [path = 'queue', param] = pathPart.split('/');
    const entry = pages.find((p) => p.path === path) ?? pages[0];
    if (!entry) return;
    const token = ++shown;
    for (const link of links) {
      if (link.getAttribute('href') === `#/${entry.path}`) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    const flash = pendingFlash;
    pendingFlash = undefined;
    // The pause shows on every page, read afresh with each (the Controls page shows this same read).
    const controls = api.call<ControlsView>('GET', '/controls');
    const ctx: PageContext = {
      api,
      config,
      person: session.person,
      roles,
      reload: () => void render(),
      reloadWith: (message) => {
        pendingFlash = message;
        void render();
      },
      flash,
      controls,
      isCurrent: () => token === shown && !signedOut,
    };
    document.title = `${entry.label} · Payouts console`;
    try {
      const [shownControls] = await Promise.all([
        controls,
        entry.page(ctx, main, param ? decodeURIComponent(param) : undefined),
      ]);
      if (!ctx.isCurrent()) return;
      replace(banner, pauseBanner(ctx, shownControls));
      main.setAttribute('aria-busy', 'false');
    } catch (error) {
      if (ctx.isCurrent()) replace(main, h('h1', {}, entry.label), notice('error', problemText(error)));
    }
  }
  window.addEventListener('hashchange', onHashChange);
  void render();
}

async function boot(): Promise<void> {
  const config = await loadConfig();
  if (config.signIn.mode === 'hosted') {
    try {
      const session = await completeHostedSignIn(config.signIn);
      if (session) return startSession(config, session);
    } catch (error) {
      return signInView(config, problemText(error));
    }
  }
  signInView(config);
}

void boot().catch((error: unknown) => {
  replace(root(), h('main', {}, notice('error', `The console could not start: ${problemText(error)}`)));
});
