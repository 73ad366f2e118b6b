import * as vscode from 'vscode';
import { SETTINGS, type SettingName, type SettingValue, type Settings } from '../model/settings';

/** Settings read from the editor's configuration, with the defaults of `core/settings`. */
export class EditorSettings implements Settings {
  get<N extends SettingName>(name: N): SettingValue<N> {
    const { key, default: fallback } = SETTINGS[name];
    const dot = key.lastIndexOf('.');
    return vscode.workspace.getConfiguration(key.slice(0, dot)).get(key.slice(dot + 1), fallback) as SettingValue<N>;
  }
}
