// Imported first by harnesses that load React from dist/: the program bin/ runs is bundled with
// NODE_ENV=production (tools/packaging/bundle.ts), so React and its scheduler run their production
// builds there, and must here too (they choose when first loaded).
process.env.NODE_ENV = 'production';
