import { describe, expect, it } from 'vitest';
import { checkTemplate, insertField, renderTemplate, templateFields } from '@/components/batches/template';

describe('template fields', () => {
  it('finds each field once, spaces inside the braces trimmed, CJK and emoji names included', () => {
    expect(templateFields('Hi {{name}}, {{ name }} from {{ 都市 }} {{😀}}')).toEqual(['name', '都市', '😀']);
    expect(templateFields('no fields, {single} braces, {{ unclosed')).toEqual([]);
  });

  it('passes when every field is a column, and a template without fields', () => {
    expect(checkTemplate('Summarize {{title}} by {{author}}', ['title', 'author', 'year'])).toEqual({ ok: true, fields: ['title', 'author'] });
    expect(checkTemplate('Same prompt for all', ['title']).ok).toBe(true);
  });

  it('names every unknown field and the columns there are', () => {
    const check = checkTemplate('Write to {{emal}} about {{title}} and {{ 都市 }}', ['email', 'title']);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.unknown).toEqual(['emal', '都市']);
    expect(check.message).toBe('These fields are not a column of the list: {{emal}}, {{都市}}. The columns are {{email}}, {{title}}.');
    expect(checkTemplate('{{x}}', ['X'])).toMatchObject({ ok: false, message: 'This field is not a column of the list: {{x}}. The columns are {{X}}.' });
  });

  it('names an empty field, refuses an empty template, and asks for a list when there are no columns', () => {
    expect(checkTemplate('a {{ }} b', ['a'])).toMatchObject({ ok: false, unknown: [''], message: expect.stringContaining('{{}} (a field without a name)') });
    expect(checkTemplate('   \n', ['a'])).toMatchObject({ ok: false, message: 'Write the prompt each item gets.' });
    expect(checkTemplate('{{a}}', [])).toMatchObject({ ok: false, message: expect.stringContaining('Add a list first') });
  });

  it('renders a row into the template (a value holding braces is not read as a field)', () => {
    expect(renderTemplate('Hi {{ name }} ({{city}}) {{other}}', { name: '{{city}} 😀', city: '東京' })).toBe('Hi {{city}} 😀 (東京) {{other}}');
  });

  it('inserts a field at the cursor, replacing a selection, clamped to the text', () => {
    expect(insertField('Hello  world', 'name', 6, 6)).toEqual({ text: 'Hello {{name}} world', cursor: 14 });
    expect(insertField('Hello XXX', '名前', 6, 9)).toEqual({ text: 'Hello {{名前}}', cursor: 12 });
    expect(insertField('ab', 'c', 99, 99)).toEqual({ text: 'ab{{c}}', cursor: 7 });
  });
});
