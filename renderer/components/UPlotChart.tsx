/**
 * The one uPlot wrapper: the chart is created once (again only when `optionsKey` or the
 * colour scheme changes) and later data goes through `setData`, so a moving slider
 * redraws the canvas instead of rebuilding the chart. It follows its container's size
 * (ResizeObserver) and is destroyed on unmount. Colours come from the theme's CSS
 * variables, read when the chart is built: `makeOptions(theme)`.
 */
import { memo, useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useColorScheme } from '../state/theme.js';

export interface ChartTheme {
  text: string;
  muted: string;
  faint: string;
  grid: string;
  border: string;
  panel: string;
  accent: string;
  danger: string;
  warn: string;
  success: string;
  teal: string;
  condensed: string;
  /** Reads any other CSS variable of the theme. */
  v(name: string): string;
}

function readTheme(): ChartTheme {
  const style = getComputedStyle(document.documentElement);
  const v = (name: string) => style.getPropertyValue(name).trim();
  return {
    text: v('--text'),
    muted: v('--text-muted'),
    faint: v('--text-faint'),
    grid: v('--border'),
    border: v('--border-strong'),
    panel: v('--panel'),
    accent: v('--accent'),
    danger: v('--danger'),
    warn: v('--warn'),
    success: v('--success'),
    teal: v('--teal'),
    condensed: v('--dag-condensed'),
    v,
  };
}


export interface UPlotChartProps {
  /** Builds the options (without width/height) from the theme's colours. */
  makeOptions(theme: ChartTheme): Omit<uPlot.Options, 'width' | 'height'>;
  /** The chart is rebuilt only when this changes (e.g. the number of series). */
  optionsKey: string;
  data: uPlot.AlignedData;
  /** The data index under the cursor, or null when it leaves the plot. */
  onCursor?(idx: number | null): void;
  /** A click on the plot, with the data index nearest the cursor. */
  onClick?(idx: number): void;
  className?: string;
  /** Changing it redraws the chart without new data (e.g. a selection drawn by a `draw` hook). */
  redrawKey?: unknown;
  /** Minimum height when the container has none. */
  minHeight?: number;
}

export const UPlotChart = memo(function UPlotChart({ makeOptions, optionsKey, data, onCursor, onClick, className, redrawKey, minHeight = 160 }: UPlotChartProps) {
  const hostRef = useRef<HTMLDivElement>(null);
  const chartRef = useRef<uPlot | null>(null);
  const scheme = useColorScheme();
  // Latest props in refs: the chart is built from them without being rebuilt by them.
  const latest = useRef({ makeOptions, data, onCursor, onClick });
  latest.current = { makeOptions, data, onCursor, onClick };

  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const size = () => ({ width: Math.max(50, Math.floor(host.clientWidth)), height: Math.max(minHeight, Math.floor(host.clientHeight)) });
    const base = latest.current.makeOptions(readTheme());
    const opts: uPlot.Options = {
      ...base,
      ...size(),
      hooks: {
        ...base.hooks,
        setCursor: [
          ...(base.hooks?.setCursor ?? []),
          (u) => {
            const idx = u.cursor.idx;
            latest.current.onCursor?.(idx === undefined || idx === null ? null : idx);
          },
        ],
      },
    };
    const chart = new uPlot(opts, latest.current.data, host);
    chartRef.current = chart;
    const onClickOver = () => {
      const idx = chart.cursor.idx;
      if (idx !== undefined && idx !== null) latest.current.onClick?.(idx);
    };
    chart.over.addEventListener('click', onClickOver);
    let frame = 0;
    const observer = new ResizeObserver(() => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => chart.setSize(size()));
    });
    observer.observe(host);
    return () => {
      cancelAnimationFrame(frame);
      observer.disconnect();
      chart.over.removeEventListener('click', onClickOver);
      chart.destroy();
      chartRef.current = null;
    };
  }, [optionsKey, scheme, minHeight]);

  useEffect(() => {
    const chart = chartRef.current;
    if (chart && chart.data !== data) chart.setData(data);
  }, [data]);

  useEffect(() => {
    chartRef.current?.redraw(false, false);
  }, [redrawKey]);

  return <div ref={hostRef} className={`uplot-host${className ? ` ${className}` : ''}`} />;
});
