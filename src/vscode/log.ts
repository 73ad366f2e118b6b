import * as vscode from 'vscode';
import type { Logger } from '../model/log';

/** The one "Ideal State" log channel, handed to the core as a Logger with named children. */
export class ChannelLogger implements Logger {
  constructor(private readonly channel: vscode.LogOutputChannel, private readonly prefix = '') {}
  debug(message: string): void {
    this.channel.debug(this.prefix + message);
  }
  info(message: string): void {
    this.channel.info(this.prefix + message);
  }
  warn(message: string): void {
    this.channel.warn(this.prefix + message);
  }
  error(message: string): void {
    this.channel.error(this.prefix + message);
  }
  child(name: string): Logger {
    return new ChannelLogger(this.channel, `${this.prefix}[${name}] `);
  }
  show(): void {
    this.channel.show(true);
  }
}
