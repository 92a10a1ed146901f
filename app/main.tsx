import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './styles.css';
import './layout.css';
import { App } from './App.tsx';
import { Providers } from './providers.tsx';

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Providers>
      <App />
    </Providers>
  </StrictMode>,
);
