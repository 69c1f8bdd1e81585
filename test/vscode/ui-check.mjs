export async function runUiCheck() { return true; }
