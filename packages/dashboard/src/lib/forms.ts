/** A form's field as text ('' when absent). */
export function text(form: HTMLFormElement, name: string): string {
  const value = new FormData(form).get(name);
  return typeof value === 'string' ? value : '';
}

/** Empties password fields once their value is on its way: nothing secret stays in the page. */
export function clearFields(form: HTMLFormElement, ...names: string[]): void {
  for (const name of names) {
    const field = form.elements.namedItem(name);
    if (field instanceof HTMLInputElement) field.value = '';
  }
}

/** A form's submit handler that runs `action` with the form, keeping the page from reloading. */
export function onSubmitWith(action: (form: HTMLFormElement) => void): (event: SubmitEvent) => void {
  return (event) => {
    event.preventDefault();
    action(event.currentTarget as HTMLFormElement);
  };
}
