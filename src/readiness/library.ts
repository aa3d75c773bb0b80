/** The built-in library of readiness rules (library/*.yaml): read and keyed on first use, each expression compiled on its first use. */
import { type CelRule, type CompiledRules, compileRules, parseRuleFile } from './cel-rules.js';
import { libraryFiles } from './library-files.js';

let compiled: CompiledRules | undefined;

/** Every rule of the library, as one set: each rule names the file it came from. */
export function library(): CompiledRules {
  if (!compiled) {
    const rules: CelRule[] = [];
    for (const [name, text] of Object.entries(libraryFiles())) {
      const source = `library/${name}`;
      for (const r of parseRuleFile(text, source, 'library').rules) rules.push({ ...r, source });
    }
    compiled = compileRules({ layer: 'library', source: 'library', rules });
  }
  return compiled;
}
