// The hosted page's only script (no framework, no third party): shows the fields of the chosen
// means, names the card's brand, checks the number (Luhn) and the expiry before sending, and
// follows a payment under way by polling /status. Card data never leaves the form: no storage,
// no URL, no console.
(() => {
  const form = document.getElementById('pay-form');
  const BRANDS = [
    [/^4/, 'Visa'],
    [/^(5[1-5]|2[2-7])/, 'Mastercard'],
    [/^3[47]/, 'American Express'],
    [/^(6011|65|64[4-9])/, 'Discover'],
  ];
  const digits = (s) => s.replace(/\D/g, '');
  const luhn = (n) => {
    let sum = 0;
    for (let i = 0; i < n.length; i++) {
      let d = +n[n.length - 1 - i];
      if (i % 2) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    return n.length >= 12 && sum % 10 === 0;
  };
  const fr = document.documentElement.lang === 'fr';
  const text = {
    number: fr ? 'Le numéro de carte n’est pas valide.' : 'The card number is not valid.',
    expiry: fr ? 'Saisissez la date au format MM/AA, dans le futur.' : 'Enter the expiry as MM/YY, in the future.',
    cvc: fr ? 'Le CVC comporte 3 ou 4 chiffres.' : 'The CVC is 3 or 4 digits.',
  };
  function choose() {
    if (!form) return;
    const picked = form.querySelector('input[name=method]:checked');
    for (const set of form.querySelectorAll('fieldset[data-method]')) set.disabled = picked ? set.dataset.method !== picked.value : false;
  }
  function validExpiry(value) {
    const m = /^(\d{1,2})\s*\/\s*(\d{2}|\d{4})$/.exec(value.trim());
    if (!m) return false;
    const month = +m[1];
    const year = m[2].length === 2 ? 2000 + +m[2] : +m[2];
    const now = new Date();
    return month >= 1 && month <= 12 && (year > now.getFullYear() || (year === now.getFullYear() && month >= now.getMonth() + 1));
  }
  function check(input, ok, message) {
    input.setCustomValidity(ok ? '' : message);
    input.setAttribute('aria-invalid', ok ? 'false' : 'true');
  }
  if (form) {
    for (const radio of form.querySelectorAll('input[name=method]')) radio.addEventListener('change', choose);
    choose();
    const number = document.getElementById('number');
    const brand = document.getElementById('brand');
    if (number && brand) {
      number.addEventListener('input', () => {
        const n = digits(number.value);
        const found = BRANDS.find(([re]) => re.test(n));
        brand.textContent = found ? found[1] : '';
        check(number, true, '');
      });
    }
    form.addEventListener('submit', (event) => {
      const card = document.getElementById('card-fields');
      if (!card || card.disabled) return;
      const expiry = document.getElementById('expiry');
      const cvc = document.getElementById('cvc');
      check(number, luhn(digits(number.value)), text.number);
      check(expiry, validExpiry(expiry.value), text.expiry);
      check(cvc, /^\d{3,4}$/.test(cvc.value.trim()), text.cvc);
      if (!form.checkValidity()) {
        event.preventDefault();
        form.reportValidity();
      }
    });
  }
  const next = document.body.dataset.next;
  if (next) setTimeout(() => location.assign(next), 1500);
  const poll = document.body.dataset.poll;
  if (poll) {
    const tick = () =>
      fetch(poll, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
        .then((r) => r.json())
        .then((s) => (s.waiting ? setTimeout(tick, 1000) : location.reload()))
        .catch(() => setTimeout(tick, 3000));
    setTimeout(tick, 1000);
  }
})();
