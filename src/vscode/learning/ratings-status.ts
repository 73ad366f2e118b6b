import * as vscode from 'vscode';
import { engine } from '../engine';
import type { LearningHost } from './learning-host';

/**
 * "★ 6.0 ↑" in the status bar: the rolling average of the last 10 ratings and its trend, while
 * no run is going. Shown from the first change or `update()` (the registration calls it when the
 * store opens), never at construction: reading ratings loads the engine and the store.
 */
export class RatingsStatus implements vscode.Disposable {
  readonly item = vscode.window.createStatusBarItem('idealState.ratings', vscode.StatusBarAlignment.Left, 10);
  private readonly subscription: vscode.Disposable;

  constructor(private readonly host: LearningHost) {
    this.item.name = 'Ideal State Ratings';
    this.item.command = 'idealState.ratings.focus';
    this.subscription = host.onDidChange(() => void this.update());
  }

  async update(): Promise<void> {
    try {
      const { formatFigures } = engine();
      const figures = (await this.host.service()).figures();
      if (figures.count === 0 || this.host.isRunActive) {
        this.item.hide();
        return;
      }
      this.item.text = `$(star-full) ${formatFigures(figures)}`;
      this.item.tooltip = `Ideal State ratings: ${formatFigures(figures)} is the average of the last ${Math.min(10, figures.count)} of ${figures.count} ratings, with its trend. Click to open the Ratings view.`;
      this.item.accessibilityInformation = { label: `Ideal State rating average ${figures.rollingAverage}, trend ${figures.trend === '↑' ? 'up' : figures.trend === '↓' ? 'down' : 'steady'}` };
      this.item.show();
    } catch (error) {
      this.host.log.warn(`ratings status: ${error instanceof Error ? error.message : String(error)}`);
      this.item.hide();
    }
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
