import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render } from '@testing-library/react';
import { MonthInput } from './MonthInput';

describe('MonthInput', () => {
  it('shows the month in the user format and reads a typed one when Enter is pressed or the field is left', () => {
    const onChange = vi.fn();
    const { container, rerender } = render(<MonthInput inputId="m" value="2026-03" onChange={onChange} dateFormat="DD-MM-YYYY HH:mm:ss" />);
    const input = container.querySelector('#m') as HTMLInputElement;
    expect(input.value).toBe('03-2026');
    expect(input.placeholder).toBe('MM-YYYY');
    fireEvent.input(input, { target: { value: '05-2019' } });
    fireEvent.keyDown(input, { key: 'Enter' });
    expect(onChange).toHaveBeenLastCalledWith('2019-05');
    rerender(<MonthInput inputId="m" value="2019-05" onChange={onChange} dateFormat="YYYY/MM/DD" />);
    expect(input.value).toBe('2019/05');
    fireEvent.input(input, { target: { value: '2020/1' } });
    fireEvent.blur(input);
    expect(onChange).toHaveBeenLastCalledWith('2020-01');
  });

  it('text that is not a month goes back to the month shown', () => {
    const onChange = vi.fn();
    const { container } = render(<MonthInput inputId="m" value="2026-03" onChange={onChange} dateFormat="DD-MM-YYYY" />);
    const input = container.querySelector('#m') as HTMLInputElement;
    fireEvent.input(input, { target: { value: '13-2026' } });
    fireEvent.blur(input);
    expect(onChange).not.toHaveBeenCalled();
    expect(input.value).toBe('03-2026');
  });
});
