import { Link } from '../lib/router.tsx';

export function NotFound() {
  return (
    <>
      <h1 tabIndex={-1}>Not found</h1>
      <p>
        There is no such page. <Link to="">Back to the overview</Link>.
      </p>
    </>
  );
}
