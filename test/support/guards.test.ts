import { spawn } from 'node:child_process';
import nodeConsole from 'node:console';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { takeConsoleWrites } from './quiet.js';

describe('the quiet guard', () => {
  it('catches what a test writes to the console, which would fail it', () => {
    console.warn('a stray line');
    console.log('another', 42);
    expect(takeConsoleWrites()).toEqual(['console.warn: a stray line', 'console.log: another 42']);
  });

  it('catches the process console too, which a module importing node:console writes to', () => {
    nodeConsole.error('from a script');
    expect(takeConsoleWrites()).toEqual(['console.error: from a script']);
  });
});

describe('the unit project refuses I/O', () => {
  it('a socket connection', () => {
    expect(() => net.connect(1, '127.0.0.1')).toThrow(/socket connection in a unit test/);
  });

  it('a listening server', () => {
    expect(() => net.createServer().listen(0)).toThrow(/listening server in a unit test/);
  });

  it('a child process', () => {
    expect(() => spawn('true')).toThrow(/child_process.spawn in a unit test/);
  });
});
