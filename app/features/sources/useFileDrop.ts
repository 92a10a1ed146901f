import { useEffect, useState } from 'react';
import { openFile } from '../../analysis.ts';
import { loadWorkspace } from '../../prefetch.ts';

/** Files dropped anywhere on the page open as the source. Returns whether a drag is over the page. */
export function useFileDrop(): boolean {
  const [over, setOver] = useState(false);
  useEffect(() => {
    let depth = 0;
    const hasFiles = (e: DragEvent): boolean => e.dataTransfer?.types.includes('Files') ?? false;
    const enter = (e: DragEvent): void => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      // a file on its way in: the session view's code is fetched now, not when it lands (a drop
      // soon after the page opened came before the idle prefetch and waited for that chunk);
      // once a drag, not at each element it enters
      if (depth++ === 0) void loadWorkspace();
      setOver(true);
    };
    const overFn = (e: DragEvent): void => {
      if (!hasFiles(e)) return;
      e.preventDefault();
      if (e.dataTransfer) e.dataTransfer.dropEffect = 'copy';
    };
    const leave = (e: DragEvent): void => {
      if (!hasFiles(e)) return;
      depth = Math.max(0, depth - 1);
      if (depth === 0) setOver(false);
    };
    const drop = (e: DragEvent): void => {
      const file = e.dataTransfer?.files?.[0];
      depth = 0;
      setOver(false);
      // a drop some part of the page took itself (Compare with…'s drop zone) is not a new source
      if (file === undefined || e.defaultPrevented) return;
      e.preventDefault();
      openFile(file);
    };
    window.addEventListener('dragenter', enter);
    window.addEventListener('dragover', overFn);
    window.addEventListener('dragleave', leave);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragenter', enter);
      window.removeEventListener('dragover', overFn);
      window.removeEventListener('dragleave', leave);
      window.removeEventListener('drop', drop);
    };
  }, []);
  return over;
}
